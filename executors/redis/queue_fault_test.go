package redis_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
)

// proxied returns an executor whose client reaches s through a proxy of its
// own, warmed up (connection, scripts and wake subscription).
func proxied(t *testing.T, s *testserver.Server, o redis.Options) (*redis.Executor, *testserver.Proxy) {
	t.Helper()
	p, err := testserver.NewProxy(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() }) // after the clients' cleanups
	e := newExecutor(t, newClient(t, p.Addr(), ctxTimeouts), o)
	if l, err := e.Acquire(t.Context(), req(uniq(t, "warm:"), time.Minute)); err == nil {
		_ = l.Release(t.Context())
	}
	warmWakes(t, e)
	return e, p
}

// attemptWithoutReply makes a waiting attempt of e on key whose reply is
// lost, and checks that it returns no lease.
func attemptWithoutReply(t *testing.T, e *redis.Executor, p *testserver.Proxy, key string) {
	t.Helper()
	r := req(key, time.Minute)
	r.Wait = true
	p.SetDropReplies(true)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	l, err := e.Acquire(ctx, r)
	cancel()
	p.SetDropReplies(false)
	p.Cut()
	if err == nil {
		t.Fatalf("an attempt without a reply returned a lease (token %d)", l.Token())
	}
	if !errors.Is(err, executor.ErrBackend) {
		t.Fatalf("an attempt without a reply = %v, want ErrBackend", err)
	}
}

// TestFault_lostReplyOnWake loses the reply of the attempt by which a woken
// waiter takes the key handed to it: the waiter gets no lease, and the void
// of that attempt hands the key on to the next waiter, long before the
// lease's TTL.
func TestFault_lostReplyOnWake(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	e, p := proxied(t, s, redis.Options{CleanupTimeout: 500 * time.Millisecond})
	other := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	warmWakes(t, other)
	key := uniq(t, "lostwake:")
	hl, wo := handToFirst(t, holder, e, other, key)
	attemptWithoutReply(t, e, p, key)
	if !fired(wo, 10*time.Second) {
		t.Fatalf("the next waiter was not woken after the lost take was voided: key holds %q", c.Get(t.Context(), key).Val())
	}
	l, err := take(t, other, key)
	if err != nil {
		t.Fatalf("the next waiter's attempt = %v", err)
	}
	if l.Token() <= hl.Token() {
		t.Fatalf("token %d after %d", l.Token(), hl.Token())
	}
}

// TestFault_lostReplyOnRegistration loses the reply of a waiting attempt
// that queued its executor: the caller gets an error and stops waiting, so
// nobody takes the claim a release then hands to that executor; the next
// waiter gets the key once the claim window has passed.
func TestFault_lostReplyOnRegistration(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	const claim = 150 * time.Millisecond
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{ClaimWindow: claim})
	e, p := proxied(t, s, redis.Options{ClaimWindow: claim})
	other := newExecutor(t, newClient(t, s.Addr()), redis.Options{ClaimWindow: claim})
	key := uniq(t, "lostreg:")
	hl := mustHold(t, holder, key)
	attemptWithoutReply(t, e, p, key)
	if q := queueOf(t, c, key); len(q) != 1 || q[0] != redis.Member(e) {
		t.Fatalf("queue after the lost registration = %v, want [%s]", q, redis.Member(e))
	}
	mustQueue(t, other, key)
	released := time.Now()
	if err := hl.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if v := c.Get(t.Context(), key).Val(); !strings.HasPrefix(v, "lock4go:claim:") {
		t.Fatalf("key after the release = %q, want a claim for the first queued", v)
	}
	var l executor.Lease
	if !testwait.Until(claim+5*time.Second, func() bool {
		var err error
		l, err = take(t, other, key)
		return err == nil
	}) {
		t.Fatal("the next waiter never got the key")
	}
	t.Logf("the next waiter got the key %v after the release (claim window %v)", time.Since(released), claim)
	_ = l.Release(t.Context())
}
