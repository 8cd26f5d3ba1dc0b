package executortest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testwait"
)

// The cases of read-write locks and semaphores run for executors that
// report them in their Capabilities; the others are told so.

func (s *suite) needShared(t *testing.T) {
	if !s.f(t).Capabilities().SharedLocks {
		t.Skip("the executor has no read locks (Capabilities.SharedLocks)")
	}
}

func (s *suite) needPermits(t *testing.T) {
	if !s.f(t).Capabilities().Semaphores {
		t.Skip("the executor has no semaphores (Capabilities.Semaphores)")
	}
}

func (s *suite) read(k string, ttl time.Duration, wait bool) executor.Request {
	r := s.req(k, ttl, wait)
	r.Shared = true
	return r
}

func (s *suite) permit(k string, n int, ttl time.Duration, wait bool) executor.Request {
	r := s.req(k, ttl, wait)
	r.Permits = n
	return r
}

func release(t *testing.T, ls ...executor.Lease) {
	t.Helper()
	for _, l := range ls {
		if err := l.Release(context.WithoutCancel(t.Context())); err != nil {
			t.Errorf("Release = %v", err)
		}
	}
}

// testReadersShare checks that readers of different executors hold a key
// together, and that readers and a writer exclude each other.
func (s *suite) testReadersShare(t *testing.T) {
	s.needShared(t)
	a, b, c := s.f(t), s.f(t), s.f(t)
	k := s.key(t)
	r1 := mustAcquire(t, a, s.read(k, 0, false))
	r2 := mustAcquire(t, b, s.read(k, 0, false))
	if r2.Token() <= r1.Token() {
		t.Errorf("second reader's token %d not above the first's %d", r2.Token(), r1.Token())
	}
	mustNotAcquire(t, c, s.req(k, 0, false))
	release(t, r1)
	mustNotAcquire(t, c, s.req(k, 0, false))
	release(t, r2)
	var w executor.Lease
	if !testwait.Until(s.o.Settle, func() bool {
		l, err := c.Acquire(t.Context(), s.req(k, 0, false))
		w = l
		return err == nil
	}) {
		t.Fatal("writer not granted after every reader released")
	}
	mustNotAcquire(t, a, s.read(k, 0, false))
	release(t, w)
}

// testPermits checks a semaphore across executors: never more than n
// holders, tokens strictly increasing, a waiter granted when a permit is
// returned, and a count that disagrees refused.
func (s *suite) testPermits(t *testing.T) {
	s.needPermits(t)
	a, b, c := s.f(t), s.f(t), s.f(t)
	k := s.key(t)
	p1 := mustAcquire(t, a, s.permit(k, 2, 0, false))
	p2 := mustAcquire(t, b, s.permit(k, 2, 0, false))
	if p2.Token() <= p1.Token() {
		t.Errorf("tokens %d then %d: not increasing", p1.Token(), p2.Token())
	}
	mustNotAcquire(t, c, s.permit(k, 2, 0, false))
	bads := []executor.Request{s.req(k, 0, false), s.read(k, 0, false)}
	if !s.o.PermitsUnchecked {
		bads = append(bads, s.permit(k, 3, 0, false))
	}
	for _, bad := range bads {
		l, err := c.Acquire(t.Context(), bad)
		if err == nil {
			release(t, l)
			t.Fatalf("Acquire(permits=%d, shared=%v) of a 2-permit semaphore succeeded", bad.Permits, bad.Shared)
		}
		if !errors.Is(err, executor.ErrInvalidConfig) && !errors.Is(err, executor.ErrNotAcquired) {
			t.Fatalf("Acquire(permits=%d, shared=%v) of a 2-permit semaphore = %v, want ErrInvalidConfig", bad.Permits, bad.Shared, err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	got := acquireAsync(ctx, c, s.permit(k, 2, 0, true))
	waiting(t, a, k, 1)
	release(t, p1)
	p3 := await(ctx, t, got, "the waiter, when a permit was returned")
	if p3.Token() <= p2.Token() {
		t.Errorf("token %d after %d: not increasing", p3.Token(), p2.Token())
	}
	mustNotAcquire(t, a, s.permit(k, 2, 0, false))
	release(t, p3)
	release(t, p2)
}

// testSharedExpiry checks that an unrenewed read lock or permit (a crashed
// holder) frees its share when its lease ends.
func (s *suite) testSharedExpiry(t *testing.T) {
	if s.o.NoExpiry {
		t.Skip("leases end with the session, not by TTL")
	}
	for _, kind := range []struct {
		name string
		need func(*testing.T)
		req  func(k string, ttl time.Duration) executor.Request
	}{
		{"read", s.needShared, func(k string, ttl time.Duration) executor.Request { return s.read(k, ttl, false) }},
		{"permit", s.needPermits, func(k string, ttl time.Duration) executor.Request { return s.permit(k, 1, ttl, false) }},
	} {
		t.Run(kind.name, func(t *testing.T) {
			kind.need(t)
			a, b := s.f(t), s.f(t)
			k := s.key(t)
			mustAcquire(t, a, kind.req(k, s.o.ShortTTL))
			writer := s.req(k, 0, false)
			if kind.name == "permit" {
				writer = s.permit(k, 1, 0, false)
			}
			mustNotAcquire(t, b, writer)
			var l executor.Lease
			if !testwait.Until(s.o.ShortTTL+s.o.Settle, func() bool {
				var err error
				l, err = b.Acquire(t.Context(), writer)
				return err == nil
			}) {
				t.Fatal("the expired share still keeps the key")
			}
			release(t, l)
		})
	}
}

// testSharedCancelledWaiter checks that a writer that gave up waiting
// behind readers leaves nothing that keeps later readers out.
func (s *suite) testSharedCancelledWaiter(t *testing.T) {
	s.needShared(t)
	a, b, c := s.f(t), s.f(t), s.f(t)
	k := s.key(t)
	r1 := mustAcquire(t, a, s.read(k, 0, false))
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	l, err := acquireBlocking(ctx, b, s.req(k, 0, true))
	cancel()
	if err == nil {
		release(t, l)
		t.Fatal("writer granted while a reader holds the key")
	}
	var r2 executor.Lease
	if !testwait.Until(s.o.Settle, func() bool {
		var err error
		r2, err = c.Acquire(t.Context(), s.read(k, 0, false))
		return err == nil
	}) {
		t.Fatal("a writer that gave up still keeps readers out")
	}
	release(t, r1, r2)
}

// testPermitCancelledWaiter checks that a permit waiter that gave up
// leaves nothing that keeps a permit from the next one.
func (s *suite) testPermitCancelledWaiter(t *testing.T) {
	s.needPermits(t)
	a, b, c := s.f(t), s.f(t), s.f(t)
	k := s.key(t)
	p1 := mustAcquire(t, a, s.permit(k, 1, 0, false))
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	l, err := acquireBlocking(ctx, b, s.permit(k, 1, 0, true))
	cancel()
	if err == nil {
		release(t, l)
		t.Fatal("a second permit of one granted")
	}
	release(t, p1)
	var p2 executor.Lease
	if !testwait.Until(s.o.Settle, func() bool {
		var err error
		p2, err = c.Acquire(t.Context(), s.permit(k, 1, 0, false))
		return err == nil
	}) {
		t.Fatal("a permit waiter that gave up still holds the permit back")
	}
	release(t, p2)
}
