package executortest

import (
	"context"
	"errors"
	"testing"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testwait"
)

// testForceRelease checks [executor.ForceReleaser]: only the holder that
// Inspect showed is broken, never one that is not (or no longer) the
// current holder; the broken holder's lease can no longer be released.
func (s *suite) testForceRelease(t *testing.T) {
	a, op := s.f(t), s.f(t)
	fr, ok := op.(executor.ForceReleaser)
	in, ok2 := op.(executor.Inspector)
	if !ok || !ok2 {
		t.Skip("executor does not implement ForceReleaser and Inspector")
	}
	k := s.key(t)
	old := mustAcquire(t, a, s.req(k, 0, false))
	h, err := in.Inspect(t.Context(), k)
	if err != nil || h.Token != old.Token() {
		t.Fatalf("Inspect = %+v, %v; want the holder of token %d", h, err, old.Token())
	}
	other := executor.Holder{Owner: owner(), Token: h.Token + 1}
	if err := fr.ForceRelease(t.Context(), k, other); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("ForceRelease of a holder that is not the current one = %v, want ErrLockNotHeld", err)
	}
	mustNotAcquire(t, op, s.req(k, 0, false))
	if err := fr.ForceRelease(t.Context(), k, h); err != nil {
		t.Fatalf("ForceRelease of the current holder = %v", err)
	}
	var cur executor.Lease
	if !testwait.Until(s.o.Settle, func() bool {
		l, err := op.Acquire(t.Context(), s.req(k, 0, false))
		cur = l
		return err == nil
	}) {
		t.Fatal("key not free after ForceRelease")
	}
	defer cur.Release(context.WithoutCancel(t.Context()))
	// The shown holder is stale now: breaking it again must spare the new one.
	if err := fr.ForceRelease(t.Context(), k, h); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("second ForceRelease with the broken holder = %v, want ErrLockNotHeld", err)
	}
	mustNotAcquire(t, a, s.req(k, 0, false))
	if err := old.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Release by the broken holder = %v, want ErrLockNotHeld", err)
	}
	mustNotAcquire(t, a, s.req(k, 0, false))
}
