package lock4go

import (
	"context"
	"errors"
	"fmt"

	"github.com/lock4go/lock4go/executor"
)

// Holder describes who holds a key, as far as the backend can tell: the
// kind of hold, every holder's owner value, fencing token and remaining
// lease, the waiters queued on the backend and, from [Template.Inspect],
// the goroutines of this process waiting in the local queue.
type Holder = executor.Holder

// Kind says how a key is held: [KindLock], [KindRead] or [KindPermits].
type Kind = executor.Kind

// The kinds of hold, as [executor.Holder.Kind] reports them.
const (
	// KindLock is a mutex, or the write lock of a key: one holder.
	KindLock = executor.KindLock
	// KindRead is read locks ([Shared]): any number of holders.
	KindRead = executor.KindRead
	// KindPermits is permits of a semaphore ([WithPermits]).
	KindPermits = executor.KindPermits
)

// Inspect asks the executor (the primary one, or the one chosen with
// [WithExecutor]) who holds key, and counts in
// [executor.Holder.LocalWaiters] the goroutines of this Template waiting
// for it in the local queue (waiters on the backend are processes: see
// [executor.Holder.Waiters]). It returns an error wrapping
// [ErrLockNotHeld] when nobody holds key, and [errors.ErrUnsupported] when
// the executor cannot tell.
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
	h, err := in.Inspect(ctx, key)
	if err != nil {
		return Holder{}, err
	}
	h.LocalWaiters = t.turns.State(turnKey{r.name, key}).Waiting
	return h, nil
}

// HeldLocks returns how many locks this Template holds right now (re-entered
// locks count once).
func (t *Template) HeldLocks() int { return int(t.holds.Load()) }
