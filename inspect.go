package lock4go

import (
	"context"
	"errors"
	"fmt"

	"github.com/lock4go/lock4go/executor"
)

// Holder describes who holds a key, as far as the backend can tell: owner
// value, fencing token, remaining lease and queued waiters.
type Holder = executor.Holder

// Inspect asks the executor (the primary one, or the one chosen with
// [WithExecutor]) who holds key. It returns an error wrapping
// [ErrLockNotHeld] when nobody does, and [errors.ErrUnsupported] when the
// executor cannot tell.
func (t *Template) Inspect(ctx context.Context, key string, opts ...LockOption) (Holder, error) {
	if err := validKey(key); err != nil {
		return Holder{}, err
	}
	_, r, err := t.options(opts)
	if err != nil {
		return Holder{}, err
	}
	e := r.e
	in, ok := e.(executor.Inspector)
	if !ok {
		return Holder{}, fmt.Errorf("lock4go: inspect on %s: %w", e.Name(), errors.ErrUnsupported)
	}
	return in.Inspect(ctx, key)
}

// HeldLocks returns how many locks this Template holds right now (re-entered
// locks count once).
func (t *Template) HeldLocks() int { return int(t.held.Load()) }
