package redis_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
)

// TestScriptFlush empties the server's script cache (as SCRIPT FLUSH, a
// restart or a failover to a replica that never ran the scripts do, and as
// Valkey does when it evicts scripts) while locks are held, read locks are
// out and waiters are queued: every script falls back to EVAL, nothing is
// lost and every waiter is woken and served.
func TestScriptFlush(t *testing.T) {
	s := server(t)
	admin := newClient(t, s.Addr())
	flush := func() {
		t.Helper()
		if err := admin.ScriptFlush(t.Context()).Err(); err != nil {
			t.Fatal(err)
		}
	}
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	const waiters = 3
	var ws []*redis.Executor
	for range waiters {
		w := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
		warmWakes(t, w)
		ws = append(ws, w)
	}
	key := uniq(t, "flush:")
	held, err := e.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var wakes []<-chan struct{}
	for _, w := range ws {
		ch, stop := queueUp(t, w, key)
		defer stop()
		wakes = append(wakes, ch)
	}
	rkey := uniq(t, "flush:r:")
	flushedRenewals(t, e, held, rkey, flush)
	held = flushedHandOffs(t, ws, wakes, key, held, flush)
	flush()
	if err := held.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := admin.Exists(t.Context(), key, redis.QueueKey(key), rkey).Val(); n != 0 {
		t.Fatalf("%d keys left after the last release", n)
	}
}

// flushedRenewals renews held and a read lock of rkey in one batch after
// a flush, then releases the read lock after another.
func flushedRenewals(t *testing.T, e *redis.Executor, held executor.Lease, rkey string, flush func()) {
	t.Helper()
	reader, err := e.Acquire(t.Context(), shared(rkey, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	flush()
	for i, err := range e.RenewBatch(t.Context(), []executor.RenewItem{{Lease: held, TTL: time.Minute}, {Lease: reader, TTL: time.Minute}}) {
		if err != nil {
			t.Fatalf("RenewBatch after SCRIPT FLUSH: item %d: %v", i, err)
		}
	}
	flush()
	if err := reader.Release(t.Context()); err != nil {
		t.Fatalf("Release of a read lock after SCRIPT FLUSH = %v", err)
	}
}

// flushedHandOffs has each release, after a flush, hand key to the next
// of ws (woken on wakes), who takes it after a flush too, with a larger
// token; it returns the last lease.
func flushedHandOffs(t *testing.T, ws []*redis.Executor, wakes []<-chan struct{}, key string, held executor.Lease, flush func()) executor.Lease {
	t.Helper()
	last := held.Token()
	for i := range ws {
		flush()
		if err := held.Release(t.Context()); err != nil {
			t.Fatalf("Release %d after SCRIPT FLUSH = %v", i, err)
		}
		if !fired(wakes[i], 2*time.Second) {
			t.Fatalf("waiter %d not woken after SCRIPT FLUSH", i)
		}
		flush()
		var err error
		if held, err = take(t, ws[i], key); err != nil {
			t.Fatalf("waiter %d: take after SCRIPT FLUSH = %v", i, err)
		}
		if held.Token() <= last {
			t.Fatalf("waiter %d: token %d after %d", i, held.Token(), last)
		}
		last = held.Token()
	}
	return held
}

// TestIsNoScript matches the server's error by its code only: Redis 7 and
// Valkey 8 word the message differently.
func TestIsNoScript(t *testing.T) {
	for _, msg := range []string{
		"NOSCRIPT No matching script. Please use EVAL.",
		"NOSCRIPT No matching script.",
		"NOSCRIPT",
	} {
		if !redis.IsNoScript(redisError(msg)) {
			t.Errorf("IsNoScript(%q) = false", msg)
		}
	}
	for _, err := range []error{nil, errors.New("NOSCRIPT, but not a server error"), redisError("NOPERM no script for you")} {
		if redis.IsNoScript(err) {
			t.Errorf("IsNoScript(%v) = true", err)
		}
	}
}

// redisError is an error as go-redis reports a server's.
type redisError string

func (e redisError) Error() string { return string(e) }

// RedisError marks the type as a server's error for go-redis.
func (redisError) RedisError() {}

// shared returns a read lock request of key.
func shared(key string, ttl time.Duration) executor.Request {
	r := req(key, ttl)
	r.Shared = true
	return r
}
