package lock4go

import (
	"context"
	"errors"
)

// reentryKey identifies a held lock in a context: one Template, executor and
// key. Re-entry is scoped by context, not goroutine: only code that was
// handed the context of [Template.Do] or [Lock.Context] re-enters.
type reentryKey struct {
	t    *Template
	exec string
	key  string
}

// heldFrom returns the lock on key that ctx carries for t, if any.
func heldFrom(ctx context.Context, t *Template, exec, key string) *held {
	h, _ := ctx.Value(reentryKey{t: t, exec: exec, key: key}).(*held)
	return h
}

func isLost(err error) bool { return errors.Is(err, ErrLockLost) }
