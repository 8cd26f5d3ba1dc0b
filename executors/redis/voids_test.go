package redis_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testlog"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
)

// TestExecutor_void_voidsLateWrites covers the two orders in which an
// acquisition whose reply was lost and its void can reach Redis: the
// write first (the void deletes it), or the void first (a go-redis retry, a
// delayed packet): the late write takes the key for nobody, and the next
// waiter's retry finds the void marker and takes the key over.
func TestExecutor_void_voidsLateWrites(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	waiter := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	warmWakes(t, waiter)
	for _, prefix := range []string{"void:", "void:{tag}:", "void}:"} {
		t.Run(prefix, func(t *testing.T) {
			key := uniq(t, prefix)
			writeThenVoid(t, c, e, waiter, key)
			voidThenWrite(t, e, waiter, key)
		})
	}
}

// writeThenVoid checks the order where the write of e's acquisition of key
// landed first: its void frees it for the queued waiter; the same write
// landing again later takes the free key for nobody, until the waiter's
// retry takes it over.
func writeThenVoid(t *testing.T, c *goredis.Client, e, waiter *redis.Executor, key string) {
	t.Helper()
	ttl := time.Minute
	r := req(key, ttl)
	l, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	w, stop := queueUp(t, waiter, key)
	defer stop()
	if !redis.Void(e, key, r.Owner, ttl) {
		t.Fatal("void failed")
	}
	if v, _, _ := redis.ParseValue(c.Get(t.Context(), key).Val()); v != "lock4go:claim:"+redis.Member(waiter) {
		t.Fatalf("key after its void = %q, want the queued waiter's claim", v)
	}
	if !fired(w, 2*time.Second) {
		t.Fatal("the void did not wake the queued waiter")
	}
	stop() // the waiter gives up: its claim is freed
	if !testwait.Until(2*time.Second, func() bool { return c.Exists(t.Context(), key).Val() == 0 }) {
		t.Fatal("key still claimed after the waiter gave up")
	}
	void := redis.VoidKey(key, r.Owner)
	if d := c.PTTL(t.Context(), void).Val(); d < ttl-5*time.Second || d > redis.VoidTTL(ttl) {
		t.Fatalf("PTTL of the void marker = %v, want about %v", d, redis.VoidTTL(ttl))
	}

	// The same write landing again (a delayed packet after the
	// void) takes the free key for nobody, until a waiter's retry.
	if _, err := e.Acquire(t.Context(), r); err != nil {
		t.Fatalf("a voided owner's late write = %v", err)
	}
	takeOverVoided(t, waiter, key)
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Release of a voided lease = %v, want ErrLockNotHeld", err)
	}
}

// voidThenWrite checks the order where the void of an acquisition of key
// by e reached Redis first, while another owner held the key: it leaves
// that lock alone, and the late write of its owner is refused after the
// key is free again.
func voidThenWrite(t *testing.T, e, waiter *redis.Executor, key string) {
	t.Helper()
	ttl := time.Minute
	other, err := e.Acquire(t.Context(), req(key, ttl))
	if err != nil {
		t.Fatalf("Acquire by another owner after a void = %v", err)
	}
	late := req(key, ttl)
	if !redis.Void(e, key, late.Owner, ttl) {
		t.Fatal("void failed")
	}
	if err := other.Renew(t.Context(), ttl); err != nil {
		t.Fatalf("another owner's lease after a foreign void: Renew = %v", err)
	}
	if err := other.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Acquire(t.Context(), late); err != nil {
		t.Fatalf("late Acquire after its void = %v", err)
	}
	takeOverVoided(t, waiter, key)
}

// Messages of the executor's core about its voids.
const (
	msgVoidFailed  = "redis: voiding an attempt whose reply was lost failed; retrying in the background (logged once until voids succeed again)"
	msgVoidDropped = "redis: executor closed before voiding an attempt whose reply was lost; what it may have taken stays locked until its lease ends at worst (no other executor voids it)"
)

// TestExecutor_Close_pendingVoid closes an executor whose
// void cannot reach Redis (a partition): Close does not wait for the
// retries (the void gets one more round, ending CleanupTimeout after Close
// began), and says what it gave up.
func TestExecutor_Close_pendingVoid(t *testing.T) {
	s := server(t)
	p, err := testserver.NewProxy(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() }) // after the clients' cleanups
	rec := new(testlog.Recorder)
	const cleanup = 100 * time.Millisecond
	e, err := redis.New(newClient(t, p.Addr(), ctxTimeouts), redis.Options{Logger: slog.New(rec), CleanupTimeout: cleanup})
	if err != nil {
		t.Fatal(err)
	}
	p.SetBlackhole(true)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	_, err = e.Acquire(ctx, req(uniq(t, "closed:"), time.Minute))
	cancel()
	if !errors.Is(err, executor.ErrBackend) {
		t.Fatalf("Acquire through a partition = %v, want ErrBackend", err)
	}
	if !rec.Await(msgVoidFailed, 5*time.Second) {
		t.Fatal("no failed void attempt reported through a partition")
	}
	start := time.Now()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// The retries would go on for a minute (the lease); Close waits at
	// most for a round in progress and for New's eviction check, which the
	// partition may have caught (bounded by 2s).
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("Close with a pending void took %v", took)
	}
	if rec.CountAt(slog.LevelWarn, msgVoidDropped) != 1 {
		t.Fatal("Close dropped the pending void without a warning")
	}
	p.SetBlackhole(false)
}

// While every void is refused, rounds send one probe instead of the
// whole backlog; once the probe succeeds, the backlog follows at once.
func TestExecutor_void_outageProbes(t *testing.T) {
	s := server(t)
	admin := newClient(t, s.Addr())
	user := newACLUser(t, admin, redis.ACLRules("other"))
	log, recovered := testlog.Signal(t, "succeed again")
	e := newExecutor(t, newClient(t, s.Addr(), asUser(user, aclPass)), redis.Options{Logger: log})
	const n = 20
	keys, owners := make([]string, n), make([]string, n)
	before := commandStats(t, admin)
	for i := range n {
		keys[i], owners[i] = uniq(t, "lock4go:probe:"), owner()
		redis.VoidLater(e, keys[i], owners[i], time.Minute)
	}
	time.Sleep(time.Second) // rounds at 50, 100, 200, 400 and 800ms of backoff
	refused := commandStats(t, admin)["eval"].rejected - before["eval"].rejected
	// The first rounds may each carry the items queued meanwhile (at most
	// n in all); after that, one probe per round, and at most 5 rounds fit.
	if refused < n || refused > n+5 {
		t.Fatalf("%d EVALs refused in the first second of an outage with %d voids pending, want between %d and %d", refused, n, n, n+5)
	}
	if err := admin.Do(t.Context(), "ACL", "SETUSER", user, "~lock4go:*", "~{lock4go:*", "&{lock4go:*").Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-recovered:
	case <-time.After(10 * time.Second):
		t.Fatal("voids did not recover after the permission came back")
	}
	if !testwait.Until(5*time.Second, func() bool {
		for i := range n {
			if admin.Exists(t.Context(), redis.VoidKey(keys[i], owners[i])).Val() != 1 {
				return false
			}
		}
		return true
	}) {
		t.Fatal("not every pending void ran after the probe succeeded")
	}
	t.Logf("%d voids pending: %d EVALs refused in the first second of the outage", n, refused)
}
