package lock4go

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/turns"
)

// A held lock, in one place: the caller's handle (Lock), the Template's
// state of the lock that its handles share (hold), the lock's local end,
// and the contexts that carry it for re-entry. How a lock ends as lost is
// in loss.go, the contexts cancelled by a loss in lockctx.go.

// Lock is the handle of a held lock. It is safe for concurrent use. Release
// it exactly once; a re-entered lock is released on the backend when the
// last of its handles is released.
//
// A Lock of [Template.LockAll] stands for several keys: Key, Owner and Token
// answer for the first of [Lock.Keys], [Lock.TokenOf] for each key, and
// Done, Err, Release and Context for all of them.
type Lock struct {
	h        *hold // the lock's hold, the first key's for LockAll
	of       held  // what the lock stands for: h, or the keys of LockAll
	released atomic.Bool
}

// held is what a [Lock] stands for: one hold (lock.go), or the holds of
// LockAll, a lockSet (multi.go). The Lock's methods ask it.
type held interface {
	attemptCount() int
	acquired() time.Time
	doneChan() <-chan struct{}
	check(now time.Time) error
	release(ctx context.Context) error
	context(parent context.Context) (context.Context, context.CancelFunc)
	keys() []string
	tokenOf(key string) int64
}

// newLock returns the handle of h.
func newLock(h *hold) *Lock { return &Lock{h: h, of: h} }

// Key returns the lock key (the first of [Lock.Keys] for LockAll).
func (l *Lock) Key() string { return l.h.key }

// Owner returns the crypto-random owner value stored with the lock.
func (l *Lock) Owner() string { return l.h.owner }

// Token returns the fencing token: strictly increasing per key across all
// owners. Pass it to the resource the lock protects and have the resource
// reject tokens lower than the highest it has seen. For LockAll it is the
// first key's; use [Lock.TokenOf] for the others.
func (l *Lock) Token() int64 { return l.h.token }

// Executor returns the name of the executor holding the lock.
func (l *Lock) Executor() string { return l.h.reg.name }

// Attempts returns how many attempts the acquisition took (for LockAll,
// the sum over its keys).
func (l *Lock) Attempts() int { return l.of.attemptCount() }

// AcquiredAt returns when the lock was obtained (for LockAll, when the last
// key was).
func (l *Lock) AcquiredAt() time.Time { return l.of.acquired() }

// Done returns a channel closed when the lock is released or lost (for
// LockAll, when any of its keys is lost). It closes at the lock's local end
// at the latest (see [Lock.Err]), by a timer, which a busy machine may run
// late: before acting as the holder, ask [Lock.Err], which is never late.
func (l *Lock) Done() <-chan struct{} { return l.of.doneChan() }

// Keys returns the keys the lock holds: the one key of Lock, the keys of
// LockAll in canonical order.
func (l *Lock) Keys() []string { return l.of.keys() }

// TokenOf returns the fencing token of key, one of [Lock.Keys], and 0 for a
// key the lock does not hold.
func (l *Lock) TokenOf(key string) int64 { return l.of.tokenOf(key) }

// Err returns nil while the lock is held, an error wrapping [ErrLockLost]
// after it was lost (and the last renewal's error, when renewals failed
// until the lease ran out), and one wrapping [ErrLockNotHeld] after release.
//
// Err reads the clock itself: past the lock's local end (the send time of
// the last renewal or keep-alive the backend confirmed, plus the lease, less
// a safety margin) it never answers nil, however late the timers and
// goroutines that watch the lock run. The first call that finds the end
// passed ends the lock as lost before it returns: Done is closed and the
// lock's contexts are cancelled with cause [ErrLockLost]. Ask Err right
// before each side effect the lock protects; it costs a clock read and an
// atomic load or two.
func (l *Lock) Err() error { return l.of.check(time.Now()) }

// Release releases this handle. The backend lock is deleted (compare and
// delete by owner) when no re-entered handle remains. Release works even if
// ctx is already cancelled: it runs detached, bounded by
// Config.ReleaseTimeout. Releasing twice, or after the lock was lost or
// expired, returns an error wrapping [ErrLockNotHeld] and touches nothing.
func (l *Lock) Release(ctx context.Context) error {
	if !l.released.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: %q already released", ErrLockNotHeld, l.h.key)
	}
	return l.of.release(ctx)
}

// Context returns a child of parent that carries the lock, so that
// [Template.Lock] and [Template.Do] on the same key re-enter it, and that is
// cancelled with cause [ErrLockLost] when the lock is lost. Its Err answers
// as [Lock.Err] does: never nil past the lock's local end, even before the
// goroutine that cancels it has run (Done is closed and the cause set by
// the time Err returns). Contexts derived from it learn of the loss when
// its Done closes. Call the returned cancel function when done; it does not
// release the lock.
func (l *Lock) Context(parent context.Context) (context.Context, context.CancelFunc) {
	return l.of.context(parent)
}

// hold is the Template's state of one lock it holds on a backend, shared by
// the lock's handles (re-entry). Its fields fall in three groups: set by
// newHold and never changed; guarded by mu (the lock's end and its
// handles); and the watchdog's, guarded by the watchdog's mutex
// (Template.wd.mu), which the watchdog takes for many locks at once.
type hold struct {
	// Immutable after newHold (turn and attempts: before the lock is handed
	// out).
	t          *Template
	reg        *registered
	lease      executor.Lease
	key, owner string
	token      int64
	ttl        time.Duration
	permits    int  // one of permits of a semaphore, 0 for a lock
	shared     bool // a read lock
	renewed    bool // the watchdog renews it
	self       bool // a watchdog lock the backend renews (Capabilities.SelfRenewing)
	// inflight is the watchdog's (guarded by its mutex, with the fields at
	// the end), placed here where it takes no padding: a renewal is running.
	inflight bool
	// ended is set, under mu, when err is.
	ended atomic.Bool
	// ender is the lease's own local end (executor.LocalEnder), or nil.
	ender      executor.LocalEnder
	acquiredAt time.Time
	attempts   int
	turn       *turns.Turn[turnKey, hold] // the local queue's turn, nil for a read lock or permit
	first      Lock                       // the handle returned by the acquisition

	// leaseEnd is when the lease ends by the local clock, as far as the
	// Template knows: its start plus the TTL less the safety margin, moved
	// by each confirmed renewal. Unused for a lease the backend renews.
	leaseEnd leases.Instant
	// loss runs the functions waiting for the lock's loss (its contexts).
	loss leases.Loss

	// Guarded by mu.
	mu   sync.Mutex
	refs int32 // handles (re-entry)
	// wdIndex is the watchdog's (guarded by its mutex), placed here where
	// it takes no padding: the position in its heap, -1 when not scheduled.
	wdIndex  int32
	done     chan struct{} // made on first use
	err      error         // nil while held
	stopLost lossWatch     // the registration for the lease's loss

	// Guarded by the watchdog's mutex (t.wd.mu).
	//
	// wdAt is the next time the watchdog looks at it; an Instant (8
	// bytes, where a time.Time takes 24) keeps the hold in a smaller
	// size class.
	wdAt      leases.Instant
	renewals  int           // successful renewals
	lastRenew time.Duration // round trip of the latest successful renewal
	renewErr  error         // the last renewal's error, nil after a success
}

// newHold returns the state of a lock granted at now. Its lease ends by the
// local clock at the lease's Start plus the TTL, less the safety margin, or
// at the lease's own local end (executor.LocalEnder) if that comes first.
func (t *Template) newHold(r *registered, req *executor.Request, l executor.Lease, now time.Time) *hold {
	h := &hold{
		t: t, reg: r, lease: l, key: req.Key, owner: req.Owner, token: l.Token(),
		ttl: req.TTL, shared: req.Shared, permits: req.Permits, renewed: req.Renewed,
		self: req.Renewed && r.caps.SelfRenewing, acquiredAt: now, refs: 1, wdIndex: -1,
	}
	h.ender, _ = l.(executor.LocalEnder)
	h.leaseEnd.Store(l.Start().Add(req.TTL - executor.SafetyMargin(req.TTL)))
	h.first.h, h.first.of = h, h
	return h
}

// errReleased is a released lock's Err.
var errReleased = fmt.Errorf("%w: released", ErrLockNotHeld)

// reenter adds a handle to h, which the context of a call with options o
// carries, if o may re-enter it.
func (h *hold) reenter(o lockOptions) (*Lock, error) {
	if err := h.reentrant(o); err != nil {
		return nil, err
	}
	_ = h.check(time.Now())
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		return nil, fmt.Errorf("lock4go: re-enter %q: %w", h.key, h.err)
	}
	h.refs++
	return newLock(h), nil
}

// errValue returns h.err under h.mu.
func (h *hold) errValue() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// release drops one handle and releases the backend lock with the last.
func (h *hold) release(ctx context.Context) error {
	h.mu.Lock()
	h.refs--
	err, last := h.err, h.refs == 0
	h.mu.Unlock()
	switch {
	case !last:
		return nil
	case err != nil:
		return fmt.Errorf("%w: %q: %w", ErrLockNotHeld, h.key, err)
	}
	now := time.Now()
	if h.pastEnd(now) {
		// The lease ran out by the local clock and the watchdog has not got
		// to it yet: the lock is not held, whatever the backend says.
		h.lose("lease ran out by the local clock before release", nil, releaseLease)
		return fmt.Errorf("%w: %q: %w", ErrLockNotHeld, h.key, h.errValue())
	}
	// Stop the watchdog first, so no renewal races the delete.
	h.t.untrack(h, now)
	rb := h.t.releaseContext(h.reg, ctx)
	err = h.lease.Release(rb.ctx)
	rb.done()
	end := now // an in-process release costs less than reading the clock
	if !h.reg.caps.InProcess {
		end = time.Now()
	}
	h.end(errReleased, endedByRelease)
	h.t.reportReleased(ctx, h, now, end, err)
	if err != nil {
		return fmt.Errorf("lock4go: release %q: %w", h.key, err)
	}
	return nil
}

// How a lock ended, for end: released by its holder, or lost.
type endedBy bool

const (
	endedByRelease endedBy = false
	endedByLoss    endedBy = true // run the functions waiting for its loss
)

// end marks the lock ended with err, once: it closes Done, frees the local
// queue and, for a loss, runs the functions waiting for it. It reports
// whether this call did.
func (h *hold) end(err error, by endedBy) bool {
	h.mu.Lock()
	if h.err != nil {
		h.mu.Unlock()
		return false
	}
	h.err = err
	h.ended.Store(true)
	stopLost := h.stopLost
	if h.done != nil {
		close(h.done)
	}
	h.mu.Unlock()
	runWaiters := func() {}
	if by == endedByLoss {
		runWaiters = h.loss.End(err)
	}
	stopLost.stop()
	if h.turn != nil {
		h.turn.Hold.Store(nil)
		h.t.turns.Release(h.turn)
	} else {
		h.t.shared.remove(h)
	}
	h.t.holds.Add(-1)
	runWaiters()
	return true
}

// A lock's local end is when its lease may end by the local clock: the send
// time of the last request the backend confirmed the lease with, plus the
// lease, less the safety margin. Past it the backend may have handed the
// lock to someone else, so the lock is lost from that instant on, whether
// or not a timer or goroutine has noticed yet: Err (of the Lock and of its
// contexts) reads the clock itself and ends the lock when it finds the end
// passed. The watchdog ends it too, by a timer, for Done.

// localEnd returns the lock's local end: the earlier of the Template's own
// (for a lease it renews or that has a fixed expiry) and the lease's
// (executor.LocalEnder). The zero time means none: a lease the backend
// renews that does not tell its end.
func (h *hold) localEnd() time.Time {
	var end time.Time
	if !h.self {
		end = h.leaseEnd.Load()
	}
	if h.ender != nil {
		if e := h.ender.LocalEnd(); end.IsZero() || e.Before(end) {
			end = e
		}
	}
	return end
}

// pastEnd reports whether the lock's local end has passed at now: a clock
// comparison with an atomic load (and the lease's LocalEnd).
func (h *hold) pastEnd(now time.Time) bool {
	if !h.self && h.leaseEnd.Passed(now) {
		return true
	}
	return h.ender != nil && !now.Before(h.ender.LocalEnd())
}

// The hold as what a one-key Lock stands for (held).

func (h *hold) attemptCount() int   { return h.attempts }
func (h *hold) acquired() time.Time { return h.acquiredAt }
func (h *hold) keys() []string      { return []string{h.key} }

func (h *hold) tokenOf(key string) int64 {
	if key == h.key {
		return h.token
	}
	return 0
}

func (h *hold) context(parent context.Context) (context.Context, context.CancelFunc) {
	return newLockCtx(parent, []*hold{h})
}

// doneChan returns the channel of [Lock.Done], made on first use.
func (h *hold) doneChan() <-chan struct{} {
	_ = h.check(time.Now())
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done == nil {
		h.done = make(chan struct{})
		if h.err != nil {
			close(h.done)
		}
	}
	return h.done
}

// check returns the lock's error: nil while it is held by the local clock at
// now. Past its local end it first ends the lock as lost (expire).
func (h *hold) check(now time.Time) error {
	if !h.ended.Load() {
		if !h.pastEnd(now) {
			return nil
		}
		h.expire()
	}
	return h.errValue()
}

// holdCtxKey is the context key under which a context carries the locks it
// holds. It has no fields, so looking it up allocates nothing.
type holdCtxKey struct{}

// holdCtx is a context carrying one lock, linked to the locks its parent
// carries (one allocation, where context.WithValue and a list node would be
// two). Re-entry is scoped by context, not goroutine: only code that was
// handed the context of [Template.Do] or [Lock.Context] re-enters.
type holdCtx struct {
	context.Context
	h    *hold
	next *holdCtx
}

// Value returns the context itself for holdCtxKey and asks the parent for
// any other key.
func (c *holdCtx) Value(key any) any {
	if _, ok := key.(holdCtxKey); ok {
		return c
	}
	return c.Context.Value(key)
}

// withHold returns a child of ctx that carries h.
func withHold(ctx context.Context, h *hold) context.Context {
	next, _ := ctx.Value(holdCtxKey{}).(*holdCtx)
	return &holdCtx{Context: ctx, h: h, next: next}
}

// holdFrom returns the lock on key through r that ctx carries for t, if
// any.
func holdFrom(ctx context.Context, t *Template, r *registered, key string) *hold {
	c, _ := ctx.Value(holdCtxKey{}).(*holdCtx)
	for ; c != nil; c = c.next {
		if h := c.h; h.t == t && h.key == key && h.reg == r {
			return h
		}
	}
	return nil
}

func isLost(err error) bool { return errors.Is(err, ErrLockLost) }

// releaseContext returns the context a release on r runs on: detached from
// the caller's (so a cancelled request still releases) and bounded by
// ReleaseTimeout, except for in-process executors, which never block.
// It shares its bound with the releases that end in the same step, with
// the caller's values (deadlines.go). Detaching a context that never ends
// (Background) would only cost an allocation.
func (t *Template) releaseContext(r *registered, ctx context.Context) callBound {
	if r.caps.InProcess {
		return callBound{ctx: context.Background()}
	}
	if sb := t.releaseJoint.join(time.Now().Add(t.cfg.ReleaseTimeout)); sb != nil {
		return callBound{ctx: sb.with(ctx), joint: sb}
	}
	if _, ok := ctx.Deadline(); ok || ctx.Done() != nil {
		ctx = context.WithoutCancel(ctx)
	}
	rctx, cancel := context.WithTimeoutCause(ctx, t.cfg.ReleaseTimeout, errReleaseTimeout)
	return callBound{ctx: rctx, cancel: cancel}
}

// errReleaseTimeout is the cause of a release's context ending: the
// backend did not answer within ReleaseTimeout.
var errReleaseTimeout = errors.New("lock4go: no answer within the release timeout (Config.ReleaseTimeout)")

// releaseDetached releases a lease that must not be reported as held, on a
// context of its own.
func (t *Template) releaseDetached(r *registered, key string, l executor.Lease) {
	rb := t.releaseContext(r, context.Background())
	defer rb.done()
	if err := l.Release(rb.ctx); err != nil && !errors.Is(err, ErrLockNotHeld) {
		t.cfg.Logger.LogAttrs(rb.ctx, levelError, "lock4go: releasing an abandoned lease failed; it ends with its TTL",
			attrKey(key), attrExec(r.name), attrErr(err))
	}
}
