package lock4go

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Attempts and releases share their bounding contexts.
//
// An attempt on a networked executor runs on a context that ends at the
// acquire deadline plus the attempt grace, a release on one that ends
// ReleaseTimeout after it starts, detached from the caller's. Where the
// caller's context cannot end the call (a release, or an attempt on a
// context that is never cancelled, such as context.Background), that
// context ends at the same instant for every call that ends then, so calls
// whose ends fall in the same step share one, a joint bound, which ends at
// the start of the step: never later than the call's own bound, earlier by
// less than a step (1/256 of the grace or of ReleaseTimeout, at most 10 ms).
// A joint bound is cancelled when the last call using it is done and a
// later step has replaced it, never before: as a context of the call's own
// is cancelled when its call is done. A call whose context has values gets
// the bound with them (jointCtx, one small allocation). It saves each call a
// context, a timer and two functions (and the Done channel go-redis asks
// for, and for a release context.WithoutCancel). An attempt on a context
// that can be cancelled, or a call with per-call timeouts, gets a context of
// its own.

// maxStep bounds how much earlier than its own bound a joint bound may end
// a call.
const maxStep = 10 * time.Millisecond

// monoOrigin is the reference of the steps: a reading of the monotonic
// clock, so that joint deadlines keep one.
var monoOrigin = time.Now()

// jointBounds hands out joint bounds of one kind (the attempts of one
// Template, say), with one cause. It is safe for concurrent use.
type jointBounds struct {
	step  time.Duration // 0: never joint
	cause error
	cur   atomic.Pointer[jointBound]
	mu    sync.Mutex // replaces cur
}

// jointBound is one context shared by the calls that end in its step.
type jointBound struct {
	at     int64 // its deadline, in steps from monoOrigin
	ctx    context.Context
	cancel context.CancelFunc
	// state is twice the calls using it, plus 1 once it is retired (a later
	// step replaced it); it is cancelled when it reaches 1.
	state atomic.Int64
}

// newJointBounds returns joint bounds ending with cause, for bounds of at
// least bound.
func newJointBounds(bound time.Duration, cause error) *jointBounds {
	return &jointBounds{step: min(bound/256, maxStep), cause: cause}
}

// join returns a joint bound ending at end, rounded down to its step, or nil
// when the call must make its own context (a later step is current, or s
// never joins). Call leave when done with it.
func (s *jointBounds) join(end time.Time) *jointBound {
	if s == nil || s.step <= 0 {
		return nil
	}
	off := end.Sub(monoOrigin)
	at := int64(off / s.step)
	if off < 0 && off%s.step != 0 {
		at-- // rounded down: never later than end
	}
	if cur := s.cur.Load(); cur != nil && cur.at == at && cur.enter() {
		return cur
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.cur.Load()
	if cur != nil && cur.at == at && cur.enter() {
		return cur
	}
	if cur != nil && cur.at > at {
		return nil
	}
	b := &jointBound{at: at}
	b.state.Store(2)
	deadline := monoOrigin.Add(time.Duration(at) * s.step)
	b.ctx, b.cancel = context.WithDeadlineCause(context.Background(), deadline, s.cause)
	s.cur.Store(b)
	if cur != nil {
		cur.retire()
	}
	return b
}

// with returns b's context carrying the values of ctx, whose cancellation
// and deadline it ignores: b's own for context.Background, a jointCtx
// otherwise.
func (b *jointBound) with(ctx context.Context) context.Context {
	if ctx == context.Background() {
		return b.ctx
	}
	return &jointCtx{Context: b.ctx, values: ctx}
}

// jointCtx is a joint bound carrying a caller's values: the bound's
// deadline, Done, Err and cause, and the caller's values, as the bound of
// context.WithoutCancel(values) would be, in one allocation.
type jointCtx struct {
	context.Context // the joint bound's
	values          context.Context
}

// Value returns the joint bound's own value for key, or else the caller's.
// A joint bound derives from context.Background, so it answers only the
// context package's own lookup of its cancellation (for Cause, and for the
// children of the jointCtx to be the bound's), and the caller's values are
// the only others.
func (c *jointCtx) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.values.Value(key)
}

// enter adds a call to b, unless b is retired.
func (b *jointBound) enter() bool {
	if b.state.Add(2)&1 == 0 {
		return true
	}
	b.leave() // retired: undone, and cancelled if this was its last call
	return false
}

// leave drops a call from b; the last call of a retired b cancels it.
func (b *jointBound) leave() {
	if b.state.Add(-2) == 1 {
		b.cancel()
	}
}

// retire marks b replaced; if no call uses it, it is cancelled.
func (b *jointBound) retire() {
	if b.state.Add(1) == 1 {
		b.cancel()
	}
}

// callBound is the context a call runs on and how to let it go: a context
// of its own (cancel), a joint bound (joint), or the caller's (neither).
type callBound struct {
	ctx    context.Context
	cancel context.CancelFunc
	joint  *jointBound
}

// done lets the call's context go.
func (c callBound) done() {
	switch {
	case c.joint != nil:
		c.joint.leave()
	case c.cancel != nil:
		c.cancel()
	}
}
