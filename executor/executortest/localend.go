package executortest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testwait"
)

// testLocalEnd checks the local end of a lease the backend renews by
// itself: the lease implements [executor.LocalEnder], its end is after the
// grant's answer, carries the monotonic clock, never moves back, and moves
// forward (a keep-alive or heartbeat confirmed) before it passes.
func (s *suite) testLocalEnd(t *testing.T) {
	e := s.f(t)
	if !e.Capabilities().SelfRenewing {
		t.Skip("the Template renews this executor's leases and keeps their end itself")
	}
	r := s.req(s.key(t), s.o.ShortTTL, false)
	r.Renewed = true
	l := mustAcquire(t, e, r)
	answered := time.Now()
	defer l.Release(context.WithoutCancel(t.Context()))
	le, ok := l.(executor.LocalEnder)
	if !ok {
		t.Fatalf("the lease %T of a self-renewing executor does not implement executor.LocalEnder", l)
	}
	end := le.LocalEnd()
	if !end.After(answered) {
		t.Fatalf("LocalEnd = %v, not after the grant's answer (%v)", end, answered)
	}
	if !strings.Contains(end.String(), " m=") {
		t.Fatalf("LocalEnd = %v, without the monotonic clock reading", end)
	}
	prev := end
	moved := testwait.Until(time.Until(end), func() bool {
		cur := le.LocalEnd()
		if cur.Before(prev) {
			t.Fatalf("LocalEnd moved back from %v to %v", prev, cur)
		}
		prev = cur
		return cur.After(end)
	})
	if !moved {
		t.Fatalf("LocalEnd stayed at %v until it passed: no keep-alive or heartbeat confirmed the lease", end)
	}
}
