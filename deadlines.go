package lock4go

import (
	"context"
	"sync/atomic"
	"time"
)

// Calls on context.Background share their bounding contexts.
//
// An attempt on a networked executor runs on a context that ends at the
// acquire deadline plus the attempt grace, a release on one that ends
// ReleaseTimeout after it starts. For a caller whose context is
// context.Background (no values, no deadline, never cancelled) that context
// is the same for every call that ends at the same instant, so calls whose
// ends fall in the same tick share one, which ends at the start of the tick:
// never later than the call's own bound, earlier by less than a tick (at
// most 1/256 of the grace or of ReleaseTimeout, and at most 10 ms). The
// shared context is cancelled when the last call using it is done and a
// later tick has replaced it, never before: as a context of the call's own
// is cancelled when its call is done. It saves each call a context, a timer
// and two functions (and the Done channel go-redis asks for). Any other
// caller's context, or a call with per-call timeouts, gets a context of its
// own.

// maxShareTick bounds how much earlier than its own bound a shared context
// may end a call.
const maxShareTick = 10 * time.Millisecond

// monoOrigin is the reference of the ticks: a reading of the monotonic
// clock, so that shared deadlines keep one.
var monoOrigin = time.Now()

// sharedBounds hands out shared contexts of one kind (the attempts of one
// Template, say), with one cause. It is safe for concurrent use.
type sharedBounds struct {
	tick  time.Duration // 0: never shared
	cause error
	cur   atomic.Pointer[sharedBound]
}

// sharedBound is one shared context.
type sharedBound struct {
	at     int64 // its deadline, in ticks from monoOrigin
	ctx    context.Context
	cancel context.CancelFunc
	// state is twice the calls using it, plus 1 once it is retired (a later
	// tick replaced it); it is cancelled when it reaches 1.
	state atomic.Int64
}

// newSharedBounds returns shared contexts ending with cause, for bounds of
// at least bound.
func newSharedBounds(bound time.Duration, cause error) *sharedBounds {
	return &sharedBounds{tick: min(bound/256, maxShareTick), cause: cause}
}

// join returns a shared context ending at end, rounded down to its tick, for
// a call on a context.Background, or nil when the call must make its own (a
// later tick is current, or sharing is off). Call leave when done with it.
func (s *sharedBounds) join(end time.Time) *sharedBound {
	if s == nil || s.tick <= 0 {
		return nil
	}
	off := end.Sub(monoOrigin)
	at := int64(off / s.tick)
	if off < 0 && off%s.tick != 0 {
		at-- // rounded down: never later than end
	}
	for {
		cur := s.cur.Load()
		if cur != nil && cur.at >= at {
			if cur.at == at && cur.enter() {
				return cur
			}
			if cur.at > at {
				return nil
			}
		}
		b := &sharedBound{at: at}
		b.state.Store(2)
		deadline := monoOrigin.Add(time.Duration(at) * s.tick)
		b.ctx, b.cancel = context.WithDeadlineCause(context.Background(), deadline, s.cause)
		if s.cur.CompareAndSwap(cur, b) {
			if cur != nil {
				cur.retire()
			}
			return b
		}
		b.cancel() // another call replaced cur first: look again
	}
}

// enter adds a call to b unless b is retired.
func (b *sharedBound) enter() bool {
	for {
		st := b.state.Load()
		if st&1 != 0 {
			return false
		}
		if b.state.CompareAndSwap(st, st+2) {
			return true
		}
	}
}

// leave drops a call from b; the last call of a retired b cancels it.
func (b *sharedBound) leave() {
	if b.state.Add(-2) == 1 {
		b.cancel()
	}
}

// retire marks b replaced; if no call uses it, it is cancelled.
func (b *sharedBound) retire() {
	if b.state.Add(1) == 1 {
		b.cancel()
	}
}

// callBound is the context a call runs on and how to let it go: a context
// of its own (cancel), a shared one (shared), or the caller's (neither).
type callBound struct {
	ctx    context.Context
	cancel context.CancelFunc
	shared *sharedBound
}

// done lets the call's context go.
func (c callBound) done() {
	switch {
	case c.shared != nil:
		c.shared.leave()
	case c.cancel != nil:
		c.cancel()
	}
}
