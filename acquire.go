package lock4go

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/turns"
)

// An acquisition, in the order it runs: the call is resolved (options.go)
// and re-enters a lock its context carries (lock.go); otherwise the caller
// takes the key's turn in the local queue, so that the backend sees one
// waiter per process and key, and attempts on the backend, waiting between
// attempts as the executor's waiting model has it (pause), until the lock
// is granted, the acquire deadline passes or the caller's context ends.
// The lock it returns is watched by the watchdog (watchdog.go), and what
// happened is reported (report.go).

// Lock acquires key, waiting up to the acquire timeout while it is busy; an
// attempt in flight when the timeout passes finishes within the attempt
// grace ([Config.AttemptGrace]) and its answer counts, so a healthy backend
// never yields [ErrBackend]. The key is used as given (key builders add
// Config.KeyPrefix). When ctx carries this key's lock (inside [Template.Do]
// or [Lock.Context]) Lock re-enters it instead of waiting for itself. The
// caller must Release the returned Lock.
//
// Errors: [ErrInvalidKey], [ErrInvalidConfig], [ErrUnknownExecutor], or an
// [*AcquireError] wrapping [ErrNotAcquired] or [ErrBackend].
func (t *Template) Lock(ctx context.Context, key string, opts ...LockOption) (*Lock, error) {
	return t.lock(ctx, key, opts, false)
}

// TryLock makes a single attempt on key, bounded by the attempt grace, and
// does not wait: it is Lock with [NoWait]. A busy key is an
// [*AcquireError] wrapping [ErrNotAcquired].
func (t *Template) TryLock(ctx context.Context, key string, opts ...LockOption) (*Lock, error) {
	return t.lock(ctx, key, opts, true)
}

// lock validates the call, re-enters a lock carried by ctx, and otherwise
// acquires key.
func (t *Template) lock(ctx context.Context, key string, opts []LockOption, try bool) (*Lock, error) {
	if err := validKey(key); err != nil {
		return nil, err
	}
	o, r, err := t.options(opts)
	if err != nil {
		return nil, err
	}
	if h := holdFrom(ctx, t, r, key); h != nil {
		return h.reenter(o)
	}
	if err := r.supports(o); err != nil {
		return nil, err
	}
	a := acquisition{t: t, r: r, key: key, o: o, try: try || o.noWait}
	return a.run(ctx)
}

// acquisition is one call's acquisition of a key: what it asked for, its
// bounds, its turn in the local queue and its attempts on the backend.
type acquisition struct {
	t        *Template
	r        *registered
	key      string
	o        lockOptions
	try      bool // one attempt, no waiting
	start    time.Time
	b        bounds
	turn     *turns.Turn[turnKey, hold] // nil for a read lock or permit
	next     bool                       // holds the turn's next place (turn.go)
	held     bool                       // holds the turn
	req      executor.Request
	attempts int
}

// turnKey names a key's turn in the local queue: per executor and key.
type turnKey struct{ exec, key string }

// run acquires the key and hands out its lock, or reports why not.
func (a *acquisition) run(ctx context.Context) (*Lock, error) {
	if a.try {
		a.o.acquireTimeout = 0 // no waiting: the attempt has the grace
	}
	a.b = bounds{parent: ctx, grace: a.o.attemptGrace, inProcess: a.r.caps.InProcess}
	if neverEnds(ctx) && !a.try && a.o.acquireTimeout == a.t.cfg.AcquireTimeout && a.o.attemptGrace == a.t.cfg.AttemptGrace {
		a.b.joint = a.t.attemptJoint // see deadlines.go
	}
	if !a.b.inProcess || a.r.wait != executor.WaitInAcquire {
		a.begin() // the first attempt is sent at once
	}
	defer a.b.stop()
	// Holders of a read lock or permit do not exclude each other: they do
	// not take turns in the local queue.
	exclusive := !a.o.shared && a.o.permits == 0
	if exclusive {
		if err := a.takeTurn(); err != nil {
			return nil, a.t.notAcquired(ctx, a, err)
		}
	}
	h, err := a.attemptUntilGranted()
	if err == nil && a.turn != nil && !a.held {
		// Granted while waiting ahead of the turn (turn.go).
		if err = a.awaitTurn(); err != nil {
			a.t.releaseDetached(a.r, a.key, h.lease)
		}
	}
	if err != nil {
		a.dropTurn()
		return nil, a.t.notAcquired(ctx, a, err)
	}
	return a.t.handOut(ctx, a, h)
}

// begin starts the acquisition's clock, once: its start, and the acquire
// deadline from it. Acquisitions start it at once, except on an in-process
// executor that waits in Acquire (the memory executor), where the first
// wait does (the local queue's, or the executor's: see acquire), so that a
// free key costs no clock read for a deadline it never needs.
func (a *acquisition) begin() {
	if !a.start.IsZero() {
		return
	}
	a.start = time.Now()
	a.b.deadline = a.start.Add(a.o.acquireTimeout)
	if !a.try {
		a.req.WaitUntil = a.b.deadline
	}
}

// handOut hands out the lock of h, granted to a: the local queue and the
// watchdog learn of it, and its acquisition is reported.
func (t *Template) handOut(ctx context.Context, a *acquisition, h *hold) (*Lock, error) {
	h.turn = a.turn
	h.attempts = a.attempts
	if a.turn != nil {
		a.turn.Hold.Store(h)
		if a.next {
			a.turn.PassNext() // the next caller may wait ahead of its turn now
			a.next = false
		}
	} else {
		t.shared.add(h)
	}
	t.track(h)
	if err := h.check(h.acquiredAt); err != nil {
		// Lost before Lock could return it (its session ended at once):
		// never hand out a lock that is already gone.
		return nil, t.notAcquired(ctx, a, fmt.Errorf("%w: %w", ErrBackend, err))
	}
	t.reportAcquired(ctx, a, h)
	return &h.first, nil
}

// bounds are the two bounds of an acquisition: the waiting ends at the
// acquire deadline (no attempt starts after it), and an attempt in flight
// then may take the attempt grace more. Both derive from the caller's
// context, lazily: the uncontended path of an in-process executor needs
// neither. In-process executors never block, so their attempts are not
// bounded, and their waits only once a wait begins.
type bounds struct {
	parent    context.Context
	deadline  time.Time
	grace     time.Duration
	inProcess bool

	waiting, attempt context.Context
	cancels          [2]context.CancelFunc
	// joint hands out the attempt's context when the caller's never ends
	// and the bounds are the Template's (deadlines.go); attemptJoint is
	// the one it handed out.
	joint        *jointBounds
	attemptJoint *jointBound
}

// Causes of the acquisition's own deadlines, telling them apart from the
// caller's context ending.
var (
	// errAcquireTimeout ends the waiting: no attempt starts after it.
	errAcquireTimeout = errors.New("lock4go: acquire timeout")
	// errNoAnswer ends an attempt still in flight at the acquire timeout
	// plus the attempt grace.
	errNoAnswer = errors.New("lock4go: no answer within the acquire timeout and attempt grace")
)

// bound returns the context that ends at the acquire deadline: waits in the
// local queue, between attempts and inside an executor that waits in
// Acquire.
func (b *bounds) bound() context.Context {
	if b.waiting == nil {
		b.waiting, b.cancels[0] = context.WithDeadlineCause(b.parent, b.deadline, errAcquireTimeout)
	}
	return b.waiting
}

// attemptCtx returns the context an attempt runs on: the caller's, bounded
// by the acquire deadline plus the grace unless the executor is in-process
// or the caller's own deadline comes first (then the caller's context is
// the bound, and no context or timer is made for it). A caller whose
// context never ends shares it with other attempts that end in the same
// step (deadlines.go).
func (b *bounds) attemptCtx() context.Context {
	if b.inProcess {
		return b.parent
	}
	if b.attempt == nil {
		end := b.deadline.Add(b.grace)
		if d, ok := b.parent.Deadline(); ok && !d.After(end) {
			b.attempt = b.parent
		} else if sb := b.joint.join(end); sb != nil {
			b.attempt, b.attemptJoint = sb.with(b.parent), sb
		} else {
			b.attempt, b.cancels[1] = context.WithDeadlineCause(b.parent, end, errNoAnswer)
		}
	}
	return b.attempt
}

// neverEnds reports whether ctx can neither be cancelled nor pass a
// deadline (context.Background, or its values).
func neverEnds(ctx context.Context) bool {
	_, ok := ctx.Deadline()
	return !ok && ctx.Done() == nil
}

// graceEnded reports whether an attempt was cut by the end of the grace
// while the caller's context was still alive.
func (b *bounds) graceEnded() bool {
	return b.attempt != nil && b.parent.Err() == nil && context.Cause(b.attempt) == errNoAnswer
}

func (b *bounds) stop() {
	for _, c := range b.cancels {
		if c != nil {
			c()
		}
	}
	if b.attemptJoint != nil {
		b.attemptJoint.leave()
	}
}

// attemptUntilGranted is the acquire loop: attempt, and while the key is
// busy or the backend fails, pause until the next attempt may start (see
// pause.wait), until the acquire deadline or the caller's context ends. An
// attempt in flight at the deadline finishes within the grace and its
// answer counts. It returns the last error.
func (a *acquisition) attemptUntilGranted() (*hold, error) {
	o := &a.o
	a.req = executor.Request{Key: a.key, TTL: o.expire, Renewed: !o.expireSet, Wait: !a.try, Shared: o.shared, Permits: o.permits}
	if !a.try && !a.start.IsZero() {
		a.req.WaitUntil = a.b.deadline
	}
	var p pause
	defer p.stop()
	for {
		a.attempts++
		if a.turn != nil && !a.try && a.r.wait == executor.WaitQueued {
			a.req.Followers = a.t.turns.Behind(a.turn) // only queued waits read it
		}
		h, err := a.attempt()
		if err == nil || a.try || a.b.parent.Err() != nil || errors.Is(err, ErrClosed) ||
			errors.Is(err, ErrInvalidConfig) || errors.Is(err, ErrInvalidKey) {
			return h, err
		}
		if !p.wait(a.b.bound(), a.r, a.key, o.retryInterval, err) {
			return nil, err
		}
	}
}

// attempt makes one attempt with a fresh owner value: an earlier attempt
// whose reply was lost may still land, or be voided by a delete of its
// owner, and must never be mistaken for this one.
func (a *acquisition) attempt() (*hold, error) {
	t, r := a.t, a.r
	a.req.Owner = t.owners.next()
	actx := a.b.attemptCtx()
	sent := a.start // the first attempt is sent at once
	if a.attempts > 1 {
		sent = time.Now()
	}
	lease, err := a.acquire(actx)
	var end time.Time
	if err == nil && r.caps.InProcess {
		end = lease.Start() // an in-process grant is answered as it starts: no clock read
	} else {
		end = time.Now()
	}
	if err != nil {
		t.countAttempt(a, end, r.elapsed(sent, end), err)
		return nil, err
	}
	if actx.Err() != nil {
		// The reply came after the caller gave up or the grace ended: the
		// lease must not be reported as held.
		t.releaseDetached(r, a.key, lease)
		return nil, fmt.Errorf("%w: %w", ErrNotAcquired, context.Cause(actx))
	}
	h := t.newHold(r, &a.req, lease, end)
	t.countAttempt(a, end, r.elapsed(sent, end), nil)
	if !h.pastEnd(end) {
		return h, nil
	}
	t.releaseDetached(r, a.key, lease)
	return nil, fmt.Errorf("%w: the lease of %v ran out before it was granted", ErrBackend, a.req.TTL)
}

// acquire sends the attempt's request. Before the acquisition's clock has
// started (see begin: an in-process executor, a free turn) the executor is
// asked first without waiting; a grant then starts the acquisition at the
// lease's start, and a busy key starts the clock and asks again, in the
// same attempt, waiting as the call asked.
func (a *acquisition) acquire(ctx context.Context) (executor.Lease, error) {
	if !a.start.IsZero() {
		return a.r.e.Acquire(ctx, a.req)
	}
	first := a.req
	first.Wait = false
	l, err := a.r.e.Acquire(ctx, first)
	if err == nil {
		a.start = l.Start()
		a.b.deadline = a.start.Add(a.o.acquireTimeout)
		return l, nil
	}
	a.begin()
	if a.try || !errors.Is(err, ErrNotAcquired) {
		return nil, err
	}
	return a.r.e.Acquire(ctx, a.req)
}

// pause is the pause between attempts on a busy key, as the executor's
// waiting model has it (executor.WaitModel): the retry interval, cut short
// when the executor reports a release of the key.
type pause struct {
	released <-chan struct{}
	unwatch  func()
	timer    *time.Timer
}

// wait pauses after an attempt that failed with err until the next one may
// start. It returns false when ctx (bounded by the acquire deadline) has
// ended. The waiting model is switched on here, and only here:
//
//   - WaitInAcquire: the executor waited in its queue already; a busy
//     answer came at the deadline, and a backend error waits the interval.
//   - WaitQueued: the failed attempt queued the executor on the backend,
//     which reports every release handed to it from then on: watch, and
//     wait for the release or the interval.
//   - WaitPolling: watch, then try again at once (a release between the
//     failed attempt and the watch would otherwise be missed); after that
//     wait for a release or the interval.
func (p *pause) wait(ctx context.Context, r *registered, key string, interval time.Duration, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	busy := errors.Is(err, ErrNotAcquired)
	if busy && p.unwatch == nil && r.waiter != nil {
		switch r.wait {
		case executor.WaitQueued:
			p.released, p.unwatch = r.waiter.WatchRelease(ctx, key)
		case executor.WaitPolling:
			p.released, p.unwatch = r.waiter.WatchRelease(ctx, key)
			return true
		case executor.WaitInAcquire:
		}
	}
	wake := p.released
	if !busy {
		wake = nil // a backend error waits the full interval
	}
	return p.sleep(ctx, wake, interval)
}

// sleep waits for wake, the interval or the end of ctx, and reports
// whether ctx is still alive.
func (p *pause) sleep(ctx context.Context, wake <-chan struct{}, interval time.Duration) bool {
	if p.timer == nil {
		p.timer = time.NewTimer(interval)
	} else {
		p.timer.Reset(interval)
	}
	select {
	case <-wake:
	case <-p.timer.C:
	case <-ctx.Done():
		return false
	}
	return true
}

func (p *pause) stop() {
	if p.unwatch != nil {
		p.unwatch()
	}
	if p.timer != nil {
		p.timer.Stop()
	}
}

// queueError reports an acquisition that gave up in the local queue,
// before any attempt on the backend: at once for a call that does not
// wait, at the acquire deadline (or when the caller's context ended)
// otherwise. It wraps [ErrNotAcquired] and the wait's cause.
type queueError struct {
	ahead int  // other callers of this process holding or awaiting the key
	try   bool // the call does not wait
	cause error
}

func (e *queueError) Error() string {
	return fmt.Sprintf("%v: %s of this process ahead in the local queue", ErrNotAcquired, callers(e.ahead))
}

func (e *queueError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrNotAcquired}
	}
	return []error{ErrNotAcquired, e.cause}
}

// callers says "1 caller" or "n callers".
func callers(n int) string {
	if n == 1 {
		return "1 caller"
	}
	return fmt.Sprintf("%d callers", n)
}

// classify maps the last error of an acquisition to the sentinel it wraps.
func classify(ctx context.Context, b *bounds, last error) error {
	switch {
	case errors.Is(last, ErrInvalidConfig), errors.Is(last, ErrInvalidKey), errors.Is(last, ErrBackend):
		return last
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %w", ErrNotAcquired, context.Cause(ctx))
	case b.graceEnded():
		return fmt.Errorf("%w: %w: %w", ErrBackend, errNoAnswer, last)
	case last == nil, errors.Is(last, ErrNotAcquired):
		return ErrNotAcquired
	}
	return fmt.Errorf("%w: %w", ErrBackend, last)
}

// ownerSource draws owner values: 128 bits from a ChaCha8 generator
// (cryptographically strong, math/rand/v2) seeded from crypto/rand, one
// generator per P through a sync.Pool, so that an owner costs no system
// call and no lock. Owners are drawn ownerBatch at a time into one string
// and handed out as slices of it: one allocation per batch, not per owner
// (a held lock's owner keeps its batch, 256 bytes, alive).
type ownerSource struct{ pool sync.Pool }

// ownerBatch is how many owners one allocation holds.
const ownerBatch = 8

// ownerLen is the length of an owner value: 32 hexadecimal digits.
const ownerLen = 32

// ownerGen is a generator with the owners it drew and has not handed out.
type ownerGen struct {
	g    *rand.ChaCha8
	left string // whole owners, ownerLen bytes each
}

// next returns a new owner value: 32 hexadecimal digits.
func (s *ownerSource) next() string {
	og, _ := s.pool.Get().(*ownerGen)
	if og == nil {
		var seed [32]byte
		_, _ = crand.Read(seed[:]) // never fails (crypto/rand)
		og = &ownerGen{g: rand.NewChaCha8(seed)}
	}
	if og.left == "" {
		var b [ownerBatch * ownerLen / 2]byte
		_, _ = og.g.Read(b[:]) // never fails
		var x [ownerBatch * ownerLen]byte
		hex.Encode(x[:], b[:])
		og.left = string(x[:])
	}
	owner := og.left[:ownerLen]
	og.left = og.left[ownerLen:]
	s.pool.Put(og)
	return owner
}
