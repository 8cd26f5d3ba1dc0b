package executortest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testwait"
)

// testFixedLeaseAfterWait: a fixed lease granted after a wait longer than
// itself lasts its full TTL from the grant. Its Start is after the wait,
// and nobody else can take the key for most of the TTL after the grant.
func (s *suite) testFixedLeaseAfterWait(t *testing.T) {
	a, b, c := s.f(t), s.f(t), s.f(t)
	k := s.key(t)
	ttl := s.o.ShortTTL
	holder := mustAcquire(t, a, s.req(k, 0, false))
	began := time.Now()
	type result struct {
		l   executor.Lease
		err error
	}
	res := make(chan result, 1)
	go func() {
		r := s.req(k, ttl, true) // fixed: Renewed is false
		r.WaitUntil = began.Add(10*ttl + s.o.Settle)
		l, err := acquireBlocking(t.Context(), b, r)
		res <- result{l, err}
	}()
	// The waiter has queued (or polls) for longer than its own TTL.
	time.Sleep(ttl * 3 / 2) // the length of the wait is what is tested, not a signal
	released := time.Now()
	if err := holder.Release(t.Context()); err != nil {
		t.Fatalf("Release = %v", err)
	}
	r := <-res
	if r.err != nil {
		t.Fatalf("waiting Acquire = %v, want the lease after the release", r.err)
	}
	defer r.l.Release(context.WithoutCancel(t.Context()))
	// The lease counts from the grant, which follows the release: a Start
	// well before it means the wait ate part of the lease. The slack is for
	// a polling attempt in flight at the release.
	slack := max(ttl/10, 100*time.Millisecond)
	if start := r.l.Start(); start.Before(released.Add(-slack)) {
		t.Fatalf("Start %v after the wait began, %v before the release: the wait ate the fixed lease",
			start.Sub(began), released.Sub(start))
	}
	// Nobody else gets the key until most of the lease has run.
	until := r.l.Start().Add(ttl * 4 / 5)
	for n := 0; n == 0 || time.Now().Before(until); n++ {
		l, err := c.Acquire(t.Context(), s.req(k, 0, false))
		if err == nil {
			_ = l.Release(t.Context())
			t.Fatalf("another owner took the key %v after the grant of a %v fixed lease",
				time.Since(r.l.Start()), ttl)
		}
		time.Sleep(ttl / 20) // probing at intervals
	}
}

// testWaitUntil: a queue wait ends at the request's WaitUntil with
// ErrNotAcquired, though ctx lives on, and leaves nothing behind.
func (s *suite) testWaitUntil(t *testing.T) {
	a, b, c := s.f(t), s.f(t), s.f(t)
	k := s.key(t)
	holder := mustAcquire(t, a, s.req(k, 0, false))
	r := s.req(k, 0, true)
	r.WaitUntil = time.Now().Add(100 * time.Millisecond)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	l, err := b.Acquire(ctx, r)
	if err == nil {
		_ = l.Release(t.Context())
		t.Fatal("waiting Acquire succeeded while the key is held")
	}
	if !errors.Is(err, executor.ErrNotAcquired) || errors.Is(err, executor.ErrBackend) {
		t.Fatalf("Acquire past its WaitUntil = %v, want ErrNotAcquired", err)
	}
	if late := time.Since(r.WaitUntil); late > s.o.Settle {
		t.Fatalf("Acquire returned %v after its WaitUntil", late)
	}
	if err := holder.Release(t.Context()); err != nil {
		t.Fatalf("Release = %v", err)
	}
	if !testwait.Until(s.o.Settle, func() bool { return tryOnce(t, c, k) }) {
		t.Fatal("a wait ended by WaitUntil left something behind: key not acquirable after release")
	}
}
