package executortest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testwait"
)

// testReleaseAfter checks a release at a time (executor.DeferredReleaser):
// the key stays taken until d after the request, is free after it without
// a further request, and a lease whose key went to another owner shortens
// nothing.
func (s *suite) testReleaseAfter(t *testing.T) {
	a, b := s.f(t), s.f(t)
	k := s.key(t)
	l := mustAcquire(t, a, s.req(k, 0, false))
	dr, ok := l.(executor.DeferredReleaser)
	if !ok {
		_ = l.Release(t.Context())
		t.Skip("leases of this executor cannot be released at a time")
	}
	d := (2 * s.o.ShortTTL).Round(time.Millisecond)
	sent := time.Now()
	if err := dr.ReleaseAfter(t.Context(), d); err != nil {
		t.Fatalf("ReleaseAfter(%v) = %v", d, err)
	}
	var next executor.Lease
	testwait.For(t, d*3+s.o.Settle, "the key free after its release at a time", func() bool {
		n, err := b.Acquire(t.Context(), s.req(k, 0, false))
		if err == nil && time.Since(sent) < d {
			_ = n.Release(context.WithoutCancel(t.Context()))
			t.Fatalf("key taken %v after ReleaseAfter(%v)", time.Since(sent), d)
		}
		next = n
		return err == nil
	})
	defer next.Release(context.WithoutCancel(t.Context()))
	if err := l.Renew(t.Context(), d); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Renew after the release at a time = %v, want ErrLockNotHeld", err)
	}
	if err := dr.ReleaseAfter(t.Context(), d); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("ReleaseAfter of a key another owner holds = %v, want ErrLockNotHeld", err)
	}
	if err := next.Renew(t.Context(), 30*time.Second); err != nil {
		t.Fatalf("the new owner's Renew after the old owner's ReleaseAfter = %v", err)
	}
}
