package lock4go

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/kit"
)

// Lock is the handle of a held lock. It is safe for concurrent use. Release
// it exactly once; a re-entered lock is released on the backend when the
// last of its handles is released.
//
// A Lock of [Template.LockAll] stands for several keys: Key, Owner and Token
// answer for the first of [Lock.Keys], [Lock.TokenOf] for each key, and
// Done, Err, Release and Context for all of them.
type Lock struct {
	h        *held
	set      *lockSet // the keys of LockAll, nil for one key
	released atomic.Bool
}

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
func (l *Lock) Executor() string { return l.h.exec.Name() }

// Attempts returns how many attempts the acquisition took (for LockAll,
// the sum over its keys).
func (l *Lock) Attempts() int {
	if l.set == nil {
		return l.h.attempts
	}
	n := 0
	for _, m := range l.set.locks {
		n += m.h.attempts
	}
	return n
}

// AcquiredAt returns when the lock was obtained (for LockAll, when the last
// key was).
func (l *Lock) AcquiredAt() time.Time {
	if l.set == nil {
		return l.h.acquiredAt
	}
	return l.set.at
}

// Done returns a channel closed when the lock is released or lost (for
// LockAll, when any of its keys is lost). It closes at the lock's local end
// at the latest (see [Lock.Err]), by a timer, which a busy machine may run
// late: before acting as the holder, ask [Lock.Err], which is never late.
func (l *Lock) Done() <-chan struct{} {
	if l.set != nil {
		_ = l.set.check(time.Now())
		return l.set.done
	}
	h := l.h
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
func (l *Lock) Err() error {
	if l.set != nil {
		return l.set.check(time.Now())
	}
	return l.h.check(time.Now())
}

// Release releases this handle. The backend lock is deleted (compare and
// delete by owner) when no re-entered handle remains. Release works even if
// ctx is already cancelled: it runs detached, bounded by
// Config.ReleaseTimeout. Releasing twice, or after the lock was lost or
// expired, returns an error wrapping [ErrLockNotHeld] and touches nothing.
func (l *Lock) Release(ctx context.Context) error {
	if !l.released.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: %q already released", ErrLockNotHeld, l.h.key)
	}
	if l.set != nil {
		return l.set.release(ctx)
	}
	return l.h.release(ctx)
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
	if l.set != nil {
		return l.set.context(parent)
	}
	ctx, cancel := context.WithCancelCause(withHeld(parent, l.h))
	id := l.h.onLost(cancel)
	return &lockCtx{Context: ctx, cancel: cancel, h: l.h}, func() {
		l.h.stopOnLost(id)
		cancel(context.Canceled)
	}
}

// held is the shared state of one backend lock and its re-entered handles.
// Its fields fall in three groups: set by newHeld and never changed; guarded
// by mu (the lock's end and its handles); and the watchdog's, guarded by the
// watchdog's mutex (Template.wd.mu), which the watchdog takes for many locks
// at once.
type held struct {
	// Immutable after newHeld.
	t          *Template
	exec       executor.Executor
	reg        *registered
	lease      executor.Lease
	key, owner string
	token      int64
	ttl        time.Duration
	shared     bool // a read lock
	permits    int  // one of permits of a semaphore, 0 for a lock
	renewed    bool // the watchdog renews it
	self       bool // a watchdog lock the backend renews (Capabilities.SelfRenewing)
	// ender is the lease's own local end (executor.LocalEnder), or nil.
	ender      executor.LocalEnder
	acquiredAt time.Time
	attempts   int
	turn       *turn
	first      Lock // the handle returned by the acquisition

	// leaseEnd is when the lease ends by the local clock, as far as the
	// Template knows: its start plus the TTL less the safety margin, moved
	// by each confirmed renewal. Unused for a lease the backend renews.
	leaseEnd kit.Instant
	// ended is set, under mu, when err is.
	ended atomic.Bool

	// Guarded by mu.
	mu       sync.Mutex
	done     chan struct{} // made on first use
	err      error         // nil while held
	refs     int
	waiters  []lostWaiter
	nextID   int
	stopLost func() bool

	// Guarded by the watchdog's mutex (t.wd.mu).
	wdIndex   int           // position in the heap, -1 when not scheduled
	wdAt      time.Time     // next time the watchdog looks at it
	inflight  bool          // a renewal is running
	renewals  int           // successful renewals
	lastRenew time.Duration // round trip of the latest successful renewal
	renewErr  error         // the last renewal's error, nil after a success
}

type lostWaiter struct {
	id int
	f  func(error)
}

// newHeld returns the state of a lock granted at now. Its lease ends by the
// local clock at the lease's Start plus the TTL, less the safety margin, or
// at the lease's own local end (executor.LocalEnder) if that comes first.
func (t *Template) newHeld(r *registered, key string, req executor.Request, l executor.Lease, now time.Time) *held {
	h := &held{
		t: t, exec: r.e, reg: r, lease: l, key: key, owner: req.Owner, token: l.Token(),
		ttl: req.TTL, shared: req.Shared, permits: req.Permits, renewed: req.Renewed, self: req.Renewed && r.caps.SelfRenewing, acquiredAt: now,
		refs: 1, wdIndex: -1,
	}
	h.ender, _ = l.(executor.LocalEnder)
	h.leaseEnd.Store(l.Start().Add(req.TTL - executor.SafetyMargin(req.TTL)))
	h.first.h = h
	return h
}

// errReleased is a released lock's Err.
var errReleased = fmt.Errorf("%w: released", ErrLockNotHeld)

// reenter adds a handle to a lock carried by a context.
func (h *held) reenter() (*Lock, error) {
	_ = h.check(time.Now())
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil {
		return nil, fmt.Errorf("lock4go: re-enter %q: %w", h.key, h.err)
	}
	h.refs++
	return &Lock{h: h}, nil
}

// errValue returns h.err under h.mu.
func (h *held) errValue() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

// onLost registers f to run when the lock is lost; if it already was, f runs
// at once. It returns an id for stopOnLost (-1 when f already ran or never
// will).
func (h *held) onLost(f func(error)) int {
	h.mu.Lock()
	if h.err != nil {
		err := h.err
		h.mu.Unlock()
		if isLost(err) {
			f(err)
		}
		return -1
	}
	id := h.nextID
	h.nextID++
	h.waiters = append(h.waiters, lostWaiter{id: id, f: f})
	h.mu.Unlock()
	return id
}

// stopOnLost unregisters the function registered under id.
func (h *held) stopOnLost(id int) {
	h.mu.Lock()
	for i, w := range h.waiters {
		if w.id == id {
			h.waiters = append(h.waiters[:i], h.waiters[i+1:]...)
			break
		}
	}
	h.mu.Unlock()
}

// release drops one reference and releases the backend lock with the last.
func (h *held) release(ctx context.Context) error {
	h.mu.Lock()
	h.refs--
	if h.refs > 0 {
		h.mu.Unlock()
		return nil
	}
	if h.err != nil {
		err := h.err
		h.mu.Unlock()
		return fmt.Errorf("%w: %q: %w", ErrLockNotHeld, h.key, err)
	}
	h.mu.Unlock()
	if h.pastEnd(time.Now()) {
		// The lease ran out by the local clock and the watchdog has not got
		// to it yet: the lock is not held, whatever the backend says.
		h.lose("lease ran out by the local clock before release", nil, releaseLease)
		return fmt.Errorf("%w: %q: %w", ErrLockNotHeld, h.key, h.errValue())
	}
	// Stop the watchdog first, so no renewal races the delete.
	h.t.untrack(h)
	rctx, cancel := h.t.releaseContext(h.exec, ctx)
	sent := h.reg.clock()
	err := h.lease.Release(rctx)
	end := time.Now()
	cancel()
	h.end(errReleased, endedByRelease)
	h.countRelease(end, elapsed(sent, end), err)
	ev := Event{Kind: EventReleased, Executor: h.exec.Name(), Key: h.key, Token: h.token, Held: end.Sub(h.acquiredAt), Err: err}
	h.t.cfg.Observer.Observe(ctx, ev)
	if err != nil {
		h.t.failures.add(FailureRelease, h.exec.Name(), h.key, err)
		h.t.cfg.Logger.LogAttrs(ctx, levelError, "lock4go: release failed", attrKey(h.key), attrExec(h.exec.Name()), attrErr(err))
		return fmt.Errorf("lock4go: release %q: %w", h.key, err)
	}
	return nil
}

// countRelease counts a release's round trip in the executor's statistics;
// a lock found gone is an answer, not a backend error.
func (h *held) countRelease(end time.Time, d time.Duration, err error) {
	if errors.Is(err, ErrLockNotHeld) {
		err = nil
	}
	h.reg.stats.record(end, d, err)
}

// lose ends a held lock as lost: it closes Done, cancels bound contexts,
// frees the local queue and, when lease is releaseLease (the backend may still
// hold it), deletes it from the backend in the background.
func (h *held) lose(reason string, cause error, lease leaseAfterLoss) {
	err := fmt.Errorf("%w: %q: %s", ErrLockLost, h.key, reason)
	if cause != nil {
		err = fmt.Errorf("%w: %q: %s: %w", ErrLockLost, h.key, reason, cause)
	}
	if !h.end(err, endedByLoss) {
		return
	}
	h.t.untrack(h)
	held := time.Since(h.acquiredAt)
	// A fixed lease nobody released ends as planned (a de-duplication
	// window, say): the holder is told, but it is not an incident.
	kind, fkind, level, msg := EventLost, FailureLost, levelWarn, "lock4go: lock lost"
	if !h.renewed && (lease == releaseLease || h.pastEnd(time.Now())) {
		kind, fkind, level, msg = EventExpired, FailureExpired, slog.LevelDebug, "lock4go: fixed lease expired"
	}
	h.t.failures.add(fkind, h.exec.Name(), h.key, err)
	h.t.cfg.Logger.LogAttrs(context.Background(), level, msg, attrKey(h.key), attrExec(h.exec.Name()), attrErr(err))
	h.t.cfg.Observer.Observe(context.Background(), Event{Kind: kind, Executor: h.exec.Name(), Key: h.key, Token: h.token, Held: held, Err: err})
	if lease == releaseLease {
		go h.t.releaseDetached(h.exec, h.key, h.lease)
	}
}

// How a lock ended, for end: released by its holder, or lost.
type endedBy bool

const (
	endedByRelease endedBy = false
	endedByLoss    endedBy = true // tell the registered waiters (Done, Do) of err
)

// What lose does with the backend's lease. A lease the backend reported
// gone, or found gone by a renewal, is left alone; one that ran out by the
// local clock may still be there and is released in the background.
type leaseAfterLoss bool

const (
	leaveLease   leaseAfterLoss = false
	releaseLease leaseAfterLoss = true
)

// end marks the lock ended with err, once. It reports whether this call did.
func (h *held) end(err error, by endedBy) bool {
	h.mu.Lock()
	if h.err != nil {
		h.mu.Unlock()
		return false
	}
	h.err = err
	h.ended.Store(true)
	waiters := h.waiters
	h.waiters = nil
	stopLost := h.stopLost
	if h.done != nil {
		close(h.done)
	}
	h.mu.Unlock()
	if stopLost != nil {
		stopLost()
	}
	if h.turn != nil {
		h.turn.holder.Store(nil)
	} else {
		h.t.shared.remove(h)
	}
	h.t.queue.release(h.turn)
	h.t.held.Add(-1)
	if by == endedByLoss {
		for _, w := range waiters {
			w.f(err)
		}
	}
	return true
}
