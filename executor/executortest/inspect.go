package executortest

import (
	"slices"
	"testing"

	"github.com/lock4go/lock4go/executor"
)

// testInspect checks [executor.Inspector]: the kind of hold, every
// holder's owner and token, and a semaphore's n.
func (s *suite) testInspect(t *testing.T) {
	a, b := s.f(t), s.f(t)
	in, ok := b.(executor.Inspector)
	if !ok {
		t.Skip("executor does not implement Inspector")
	}
	t.Run("lock", func(t *testing.T) {
		k := s.key(t)
		r := s.req(k, 0, false)
		l := mustAcquire(t, a, r)
		defer release(t, l)
		s.wantHolders(t, in, k, executor.KindLock, 0, []executor.Request{r}, []executor.Lease{l}, true)
	})
	t.Run("readers", func(t *testing.T) {
		if !a.Capabilities().SharedLocks {
			t.Skip("the executor has no read locks (Capabilities.SharedLocks)")
		}
		k := s.key(t)
		r1, r2 := s.read(k, 0, false), s.read(k, 0, false)
		l1 := mustAcquire(t, a, r1)
		defer release(t, l1)
		l2 := mustAcquire(t, b, r2)
		defer release(t, l2)
		s.wantHolders(t, in, k, executor.KindRead, 0, []executor.Request{r1, r2}, []executor.Lease{l1, l2}, !s.o.SharedTokensUnkept)
	})
	t.Run("permits", func(t *testing.T) {
		if !a.Capabilities().Semaphores {
			t.Skip("the executor has no semaphores (Capabilities.Semaphores)")
		}
		k := s.key(t)
		r1, r2 := s.permit(k, 3, 0, false), s.permit(k, 3, 0, false)
		l1 := mustAcquire(t, a, r1)
		defer release(t, l1)
		l2 := mustAcquire(t, b, r2)
		defer release(t, l2)
		n := 3
		if s.o.PermitsUnchecked {
			n = 0 // the backend does not store n
		}
		s.wantHolders(t, in, k, executor.KindPermits, n, []executor.Request{r1, r2}, []executor.Lease{l1, l2}, !s.o.SharedTokensUnkept)
	})
}

// wantHolders checks that Inspect of k reports kind, permits and exactly
// the holders of reqs (by owner, and by token when tokens is set), in any
// order, with Owner, Token and TTL those of the first.
func (s *suite) wantHolders(t *testing.T, in executor.Inspector, k string, kind executor.Kind, permits int, reqs []executor.Request, ls []executor.Lease, tokens bool) {
	t.Helper()
	h, err := in.Inspect(t.Context(), k)
	if err != nil {
		t.Fatalf("Inspect = %v", err)
	}
	if h.Kind != kind || h.Permits != permits || len(h.Holders) != len(reqs) {
		t.Fatalf("Inspect = %+v; want kind %v, permits %d, %d holders", h, kind, permits, len(reqs))
	}
	first := h.Holders[0]
	if h.Owner != first.Owner || h.Token != first.Token || h.TTL != first.TTL {
		t.Fatalf("Inspect = %+v: Owner, Token and TTL are not the first holder's", h)
	}
	for i, r := range reqs {
		j := slices.IndexFunc(h.Holders, func(x executor.Holder) bool { return x.Owner == r.Owner })
		switch {
		case j < 0:
			t.Fatalf("Inspect = %+v: no holder %s", h, r.Owner)
		case tokens && h.Holders[j].Token != ls[i].Token():
			t.Fatalf("Inspect = %+v: holder %s has token %d, want %d", h, r.Owner, h.Holders[j].Token, ls[i].Token())
		case !s.o.NoExpiry && (h.Holders[j].TTL <= 0 || h.Holders[j].TTL > r.TTL):
			t.Fatalf("Inspect = %+v: holder %s has TTL %v, want (0, %v]", h, r.Owner, h.Holders[j].TTL, r.TTL)
		}
	}
}
