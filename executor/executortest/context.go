package executortest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// errTestCause is the cause of the deadlines set by testDeadlineCause.
var errTestCause = errors.New("executortest: the caller's deadline cause")

// testDeadlineCause checks the contract's context errors: an Acquire
// ended by a deadline that carries a cause returns an error wrapping
// context.DeadlineExceeded and the cause ([executor.ContextError]), before
// any round trip and while waiting behind a holder.
func (s *suite) testDeadlineCause(t *testing.T) {
	a, b := s.f(t), s.f(t)
	k := s.key(t)
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, executor.ErrNotAcquired) && !errors.Is(err, executor.ErrBackend) {
			t.Errorf("%s: Acquire = %v, want ErrNotAcquired or ErrBackend", what, err)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errTestCause) {
			t.Errorf("%s: Acquire = %v, want it to wrap context.DeadlineExceeded and the deadline's cause", what, err)
		}
	}
	ctx, cancel := context.WithDeadlineCause(t.Context(), time.Now().Add(-time.Second), errTestCause)
	_, err := a.Acquire(ctx, s.req(k, 0, true))
	cancel()
	check("deadline passed before the call", err)

	holder := mustAcquire(t, a, s.req(k, 0, false))
	defer holder.Release(context.WithoutCancel(t.Context()))
	ctx, cancel = context.WithDeadlineCause(t.Context(), time.Now().Add(100*time.Millisecond), errTestCause)
	defer cancel()
	l, err := b.Acquire(ctx, s.req(k, 0, true))
	switch {
	case err == nil:
		_ = l.Release(t.Context())
		t.Fatal("Acquire succeeded while the key is held")
	case ctx.Err() == nil && errors.Is(err, executor.ErrNotAcquired):
		// An executor that does not wait in Acquire answered "busy" at once.
	default:
		check("deadline passed while waiting", err)
	}
}
