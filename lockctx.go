package lock4go

import (
	"context"
	"time"
)

// lockCtx is the context of held locks ([Lock.Context], and fn's context in
// Do, DoAll, Lead and Locked): a context cancelled with cause ErrLockLost
// when one of its locks is lost, whose Err also reads the clock. Past a
// lock's local end it ends that lock (which cancels the context through
// the lock's loss waiters) before it answers, so it never answers nil past
// the end, however late the goroutines that watch the lock run, and keeps
// the context.Context contract: once Err is not nil, Done is closed and
// Cause is set.
type lockCtx struct {
	context.Context // context.WithCancelCause of a context carrying the locks
	cancel          context.CancelCauseFunc
	h               *hold   // the lock, or the first of LockAll's
	rest            []*hold // the other locks of LockAll
}

// Err implements context.Context. While every lock is held and within its
// local end it costs a clock read and a few atomic loads.
func (c *lockCtx) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	now := time.Now()
	if c.live(c.h, now) && c.liveRest(now) {
		return nil
	}
	return c.settle(now)
}

// newLockCtx returns the context of hs ([Lock.Context]): a child of parent
// carrying every lock, cancelled with the first loss.
func newLockCtx(parent context.Context, hs []*hold) (context.Context, context.CancelFunc) {
	for _, h := range hs {
		parent = withHold(parent, h)
	}
	ctx, cancel := context.WithCancelCause(parent)
	c := &lockCtx{Context: ctx, cancel: cancel, h: hs[0], rest: hs[1:]}
	if len(hs) == 1 {
		id, ok := hs[0].onLost(cancel)
		return c, func() {
			if ok {
				hs[0].loss.Forget(id)
			}
			cancel(context.Canceled)
		}
	}
	ids := make([]uint64, len(hs))
	oks := make([]bool, len(hs))
	for i, h := range hs {
		ids[i], oks[i] = h.onLost(cancel)
	}
	return c, func() {
		for i, h := range hs {
			if oks[i] {
				h.loss.Forget(ids[i])
			}
		}
		cancel(context.Canceled)
	}
}

// onLost registers f to run when the lock is lost, and returns the id to
// forget it with (h.loss.Forget); if the lock was lost already, f runs at
// once, and if it was released f never runs: ok is false then.
func (h *hold) onLost(f func(error)) (id uint64, ok bool) {
	if err := h.errValue(); err != nil {
		if isLost(err) {
			f(err)
		}
		return 0, false
	}
	if id, ok = h.loss.OnLoss(f); !ok {
		f(h.loss.Cause()) // lost since errValue
	}
	return id, ok
}

// live reports whether h is held and within its local end at now.
func (c *lockCtx) live(h *hold, now time.Time) bool {
	return !h.ended.Load() && !h.pastEnd(now)
}

func (c *lockCtx) liveRest(now time.Time) bool {
	for _, h := range c.rest {
		if !c.live(h, now) {
			return false
		}
	}
	return true
}

// settle ends the locks found past their end and cancels the context with
// the first loss, which the locks' loss waiters may not have done yet (a
// loss in progress on another goroutine). A released lock cancels nothing.
func (c *lockCtx) settle(now time.Time) error {
	if err := c.h.check(now); isLost(err) {
		c.cancel(err)
	}
	for _, h := range c.rest {
		if err := h.check(now); isLost(err) {
			c.cancel(err)
		}
	}
	return c.Context.Err()
}

// LockFrom returns the lock on key that ctx carries (inside [Template.Do],
// [Template.DoAll], [Template.Lead] or a context from [Lock.Context]), or
// nil. Use it to read the fencing token where only the context was passed.
// The call that took the lock releases it: Release of the returned handle
// returns [ErrLockNotHeld] and touches nothing.
func LockFrom(ctx context.Context, key string) *Lock {
	c, _ := ctx.Value(holdCtxKey{}).(*holdCtx)
	for ; c != nil; c = c.next {
		if c.h.key == key {
			l := newLock(c.h)
			l.released.Store(true)
			return l
		}
	}
	return nil
}
