package lock4go

import (
	"context"
	"errors"
)

// heldCtxKey is the context key under which a context carries the locks it
// holds. It has no fields, so looking it up allocates nothing.
type heldCtxKey struct{}

// heldCtx is a context carrying one lock, linked to the locks its parent
// carries (one allocation, where context.WithValue and a list node would be
// two). Re-entry is scoped by context, not goroutine: only code that was
// handed the context of [Template.Do] or [Lock.Context] re-enters.
type heldCtx struct {
	context.Context
	h    *held
	next *heldCtx
}

// Value returns the context itself for heldCtxKey and asks the parent for
// any other key.
func (c *heldCtx) Value(key any) any {
	if _, ok := key.(heldCtxKey); ok {
		return c
	}
	return c.Context.Value(key)
}

// withHeld returns a child of ctx that carries h.
func withHeld(ctx context.Context, h *held) context.Context {
	next, _ := ctx.Value(heldCtxKey{}).(*heldCtx)
	return &heldCtx{Context: ctx, h: h, next: next}
}

// heldFrom returns the lock on key through exec that ctx carries for t, if
// any.
func heldFrom(ctx context.Context, t *Template, exec, key string) *held {
	c, _ := ctx.Value(heldCtxKey{}).(*heldCtx)
	for ; c != nil; c = c.next {
		if h := c.h; h.t == t && h.key == key && h.exec.Name() == exec {
			return h
		}
	}
	return nil
}

func isLost(err error) bool { return errors.Is(err, ErrLockLost) }
