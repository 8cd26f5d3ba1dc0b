package lock4go

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// Causes of the acquire loop's own deadlines, telling them apart from the
// caller's context ending.
var (
	// errAcquireTimeout ends the waiting: no attempt starts after it.
	errAcquireTimeout = errors.New("lock4go: acquire timeout")
	// errNoAnswer ends an attempt still in flight at the acquire timeout
	// plus the attempt grace.
	errNoAnswer = errors.New("lock4go: no answer within the acquire timeout and attempt grace")
)

// lock validates the call, re-enters a lock carried by ctx, and otherwise
// runs the acquire loop behind the local queue.
func (t *Template) lock(ctx context.Context, key string, opts []LockOption, try bool) (*Lock, error) {
	if err := validKey(key); err != nil {
		return nil, err
	}
	o, r, err := t.options(opts)
	if err != nil {
		return nil, err
	}
	e := r.e
	if h := heldFrom(ctx, t, e.Name(), key); h != nil {
		if err := h.reentrant(o); err != nil {
			return nil, err
		}
		return h.reenter()
	}
	if err := r.supports(o); err != nil {
		return nil, err
	}
	try = try || o.noWait
	if try {
		o.acquireTimeout = 0 // no waiting: the attempt has the grace
	}
	start := time.Now()
	w := waitContext{parent: ctx, deadline: start.Add(o.acquireTimeout), grace: o.attemptGrace, inProcess: r.caps.InProcess}
	defer w.stop()

	// Holders of a read lock or permit do not exclude each other: they do
	// not take turns in the local queue.
	var turn *turn
	if !o.shared && o.permits == 0 {
		turn, err = t.queue.acquire(&w, e.Name(), key, try)
		if err != nil {
			return nil, t.notAcquired(ctx, &w, e, key, start, 0, err)
		}
	}
	h, attempts, err := t.acquire(&w, r, turn, key, o, try)
	if err != nil {
		t.queue.release(turn)
		return nil, t.notAcquired(ctx, &w, e, key, start, attempts, err)
	}
	h.turn = turn
	h.attempts = attempts
	if turn != nil {
		turn.holder.Store(h)
	} else {
		t.shared.add(h)
	}
	t.track(h)
	if err := h.check(time.Now()); err != nil {
		// Lost, or past its local end, before Lock could return it (its
		// session ended at once, the reply came late): never hand out a
		// lock that is already gone.
		return nil, t.notAcquired(ctx, &w, e, key, start, attempts, fmt.Errorf("%w: %w", ErrBackend, err))
	}
	t.cfg.Observer.Observe(ctx, Event{
		Kind: EventAcquired, Executor: e.Name(), Key: key, Token: h.token,
		Attempts: attempts, Wait: h.acquiredAt.Sub(start),
	})
	return &h.first, nil
}

// waitContext holds the two bounds of an acquisition: the waiting ends at
// the acquire deadline (no attempt starts after it), and an attempt in
// flight then may take the attempt grace more. Both derive from the
// caller's context. In-process executors never block, so their attempts
// are not bounded, and their waits only once a wait begins, which spares
// the uncontended path a timer.
type waitContext struct {
	parent    context.Context
	deadline  time.Time
	grace     time.Duration
	inProcess bool

	waiting, attempt context.Context
	cancels          [2]context.CancelFunc
}

// bound returns the context that ends at the acquire deadline: waits in the
// local queue, between attempts and inside a queue-based executor.
func (w *waitContext) bound() context.Context {
	if w.waiting == nil {
		w.waiting, w.cancels[0] = context.WithDeadlineCause(w.parent, w.deadline, errAcquireTimeout)
	}
	return w.waiting
}

// attemptCtx returns the context an attempt runs on: the caller's, bounded
// by the acquire deadline plus the grace unless the executor is in-process.
func (w *waitContext) attemptCtx() context.Context {
	if w.inProcess {
		return w.parent
	}
	if w.attempt == nil {
		w.attempt, w.cancels[1] = context.WithDeadlineCause(w.parent, w.deadline.Add(w.grace), errNoAnswer)
	}
	return w.attempt
}

// graceEnded reports whether an attempt was cut by the end of the grace
// while the caller's context was still alive.
func (w *waitContext) graceEnded() bool {
	return w.attempt != nil && w.parent.Err() == nil && context.Cause(w.attempt) == errNoAnswer
}

func (w *waitContext) stop() {
	for _, c := range w.cancels {
		if c != nil {
			c()
		}
	}
}

// acquire is the acquire loop: attempt, and while the key is busy or the
// backend fails, wait the retry interval (or less, when the executor reports
// a release) until the acquire deadline or the caller's context ends. An
// attempt in flight at the deadline finishes within the grace and its
// answer counts. It returns the attempt count and the last error.
func (t *Template) acquire(w *waitContext, r *registered, turn *turn, key string, o lockOptions, try bool) (*held, int, error) {
	req := executor.Request{Key: key, TTL: o.expire, Renewed: !o.expireSet, Wait: !try, Shared: o.shared, Permits: o.permits}
	if !try {
		req.WaitUntil = w.deadline
	}
	rw := retryWait{waiter: r.waiter, queued: r.caps.QueuedWaits, interval: o.retryInterval}
	defer rw.stop()
	for attempts := 1; ; attempts++ {
		if rw.queued && !try && turn != nil {
			req.Followers = t.queue.followed(turn)
		}
		h, err := t.attempt(w, r, &req)
		if err == nil || try || w.parent.Err() != nil || errors.Is(err, ErrClosed) ||
			errors.Is(err, ErrInvalidConfig) || errors.Is(err, ErrInvalidKey) {
			return h, attempts, err
		}
		if !rw.wait(w.bound(), key, err) {
			return nil, attempts, err
		}
	}
}

// attempt makes one attempt with a fresh owner value: an earlier attempt
// whose reply was lost may still land, or be voided by a delete of its
// owner, and must never be mistaken for this one.
func (t *Template) attempt(w *waitContext, r *registered, req *executor.Request) (*held, error) {
	e := r.e
	req.Owner = newOwner()
	actx := w.attemptCtx()
	sent := r.clock()
	lease, err := e.Acquire(actx, *req)
	end := time.Now()
	if err != nil {
		t.countAttempt(w, r, req, end, elapsed(sent, end), err)
		return nil, err
	}
	if actx.Err() != nil {
		// The reply came after the caller gave up or the grace ended: the
		// lease must not be reported as held.
		t.releaseDetached(e, req.Key, lease)
		return nil, fmt.Errorf("%w: %w", ErrNotAcquired, context.Cause(actx))
	}
	h := t.newHeld(r, req.Key, *req, lease, end)
	if r.roundTrip(req) {
		r.stats.record(end, elapsed(sent, end), nil)
	}
	if !h.pastEnd(time.Now()) {
		return h, nil
	}
	t.releaseDetached(e, req.Key, lease)
	return nil, fmt.Errorf("%w: the lease of %v ran out before it was granted", ErrBackend, req.TTL)
}

// retryWait is the pause between attempts: the retry interval, cut short
// when the executor reports a release of the key.
type retryWait struct {
	waiter   executor.Waiter
	queued   bool // the waiter reports releases since the failed attempt
	interval time.Duration
	released <-chan struct{}
	unwatch  func()
	timer    *time.Timer
}

func asWaiter(e executor.Executor) executor.Waiter {
	w, _ := e.(executor.Waiter)
	return w
}

// roundTrip reports whether an attempt of req on r is one round trip, and
// so a sample of the backend's latency: an executor that reports releases
// waits between attempts (in the Template), one without may wait in its
// queue inside the attempt unless req forbids it, and that wait says
// nothing of the backend.
func (r *registered) roundTrip(req *executor.Request) bool {
	return r.waiter != nil || !req.Wait
}

// countAttempt counts a failed attempt in r's statistics: a busy answer as
// a round trip, a backend error (or no answer within the grace) as an
// error. An attempt the caller gave up on or that was refused says nothing
// of the backend.
func (t *Template) countAttempt(w *waitContext, r *registered, req *executor.Request, end time.Time, d time.Duration, err error) {
	switch {
	case w.parent.Err() != nil, errors.Is(err, ErrInvalidConfig), errors.Is(err, ErrInvalidKey):
	case errors.Is(err, ErrNotAcquired) && !w.graceEnded():
		if r.roundTrip(req) {
			r.stats.record(end, d, nil)
		}
	case r.roundTrip(req):
		r.stats.record(end, d, err)
	default:
		r.stats.fail(end, err)
	}
}

// wait pauses after a failed attempt until the next one may start. It
// returns false when ctx (bounded by the acquire deadline) has ended.
func (r *retryWait) wait(ctx context.Context, key string, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	busy := errors.Is(err, ErrNotAcquired)
	if busy && r.waiter != nil && r.unwatch == nil {
		// Subscribe, then try again at once: a release between the failed
		// attempt and the subscription would otherwise be missed, unless
		// the waiter queued at that attempt and reports it.
		r.released, r.unwatch = r.waiter.WatchRelease(ctx, key)
		if !r.queued {
			return true
		}
	}
	if r.timer == nil {
		r.timer = time.NewTimer(r.interval)
	} else {
		r.timer.Reset(r.interval)
	}
	wake := r.released
	if !busy {
		wake = nil // a backend error waits the full interval
	}
	select {
	case <-wake:
	case <-r.timer.C:
	case <-ctx.Done():
		return false
	}
	return true
}

func (r *retryWait) stop() {
	if r.unwatch != nil {
		r.unwatch()
	}
	if r.timer != nil {
		r.timer.Stop()
	}
}

// notAcquired builds the error for a failed acquisition and reports it:
// ErrNotAcquired when the key stayed busy or the caller gave up, ErrBackend
// when the backend failed or left an attempt unanswered past the grace,
// and a rejected request's own error otherwise.
func (t *Template) notAcquired(ctx context.Context, w *waitContext, e executor.Executor, key string, start time.Time, attempts int, last error) error {
	aerr := &AcquireError{Key: key, Executor: e.Name(), Attempts: attempts, Waited: time.Since(start), err: classify(ctx, w, last)}
	errors.As(last, &aerr.queue)
	kind := FailureNotAcquired
	if !errors.Is(aerr.err, ErrNotAcquired) {
		kind = FailureBackend
	}
	t.failures.add(kind, e.Name(), key, aerr)
	t.cfg.Observer.Observe(ctx, Event{
		Kind: EventNotAcquired, Executor: e.Name(), Key: key, Attempts: attempts, Wait: aerr.Waited, Err: aerr,
	})
	return aerr
}

// classify maps the last error of an acquisition to the sentinel it wraps.
func classify(ctx context.Context, w *waitContext, last error) error {
	switch {
	case errors.Is(last, ErrInvalidConfig), errors.Is(last, ErrInvalidKey), errors.Is(last, ErrBackend):
		return last
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %w", ErrNotAcquired, context.Cause(ctx))
	case w.graceEnded():
		return fmt.Errorf("%w: %w: %w", ErrBackend, errNoAnswer, last)
	case last == nil, errors.Is(last, ErrNotAcquired):
		return ErrNotAcquired
	}
	return fmt.Errorf("%w: %w", ErrBackend, last)
}

// releaseContext returns the context a release runs on: detached from the
// caller's (so a cancelled request still releases) and bounded by
// ReleaseTimeout, except for in-process executors, which never block.
func (t *Template) releaseContext(e executor.Executor, ctx context.Context) (context.Context, context.CancelFunc) {
	if e.Capabilities().InProcess {
		return context.Background(), func() {}
	}
	return context.WithTimeout(context.WithoutCancel(ctx), t.cfg.ReleaseTimeout)
}

// releaseDetached releases a lease that must not be reported as held, on a
// context of its own.
func (t *Template) releaseDetached(e executor.Executor, key string, l executor.Lease) {
	ctx, cancel := t.releaseContext(e, context.Background())
	defer cancel()
	if err := l.Release(ctx); err != nil && !errors.Is(err, ErrLockNotHeld) {
		t.cfg.Logger.LogAttrs(ctx, levelError, "lock4go: releasing an abandoned lease failed; it ends with its TTL",
			attrKey(key), attrExec(e.Name()), attrErr(err))
	}
}

// newOwner returns a 128-bit crypto-random owner value.
func newOwner() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	var s [32]byte
	hex.Encode(s[:], b[:])
	return string(s[:])
}
