package redis_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
)

func TestNew_invalid(t *testing.T) {
	c := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	ring := goredis.NewRing(&goredis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}})
	defer ring.Close()
	tests := []struct {
		name   string
		client goredis.UniversalClient
		opts   redis.Options
	}{
		{"nil client", nil, redis.Options{}},
		{"typed nil *Client", (*goredis.Client)(nil), redis.Options{}},
		{"typed nil *ClusterClient", (*goredis.ClusterClient)(nil), redis.Options{}},
		{"negative SubscribeTimeout", c, redis.Options{SubscribeTimeout: -time.Second}},
		{"negative CleanupTimeout", c, redis.Options{CleanupTimeout: -time.Second}},
		{"ring", ring, redis.Options{}}, // pub/sub per shard: releases would not reach every waiter
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := redis.New(tc.client, tc.opts)
			if !errors.Is(err, executor.ErrInvalidConfig) {
				if e != nil {
					_ = e.Close()
				}
				t.Fatalf("New = %v, want ErrInvalidConfig", err)
			}
		})
	}
}

func TestExecutor_defaults(t *testing.T) {
	s := server(t)
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	if e.Name() != "redis" || e.Priority() != redis.Priority {
		t.Fatalf("Name, Priority = %q, %d", e.Name(), e.Priority())
	}
	e = newExecutor(t, newClient(t, s.Addr()), redis.Options{Name: "cache", Priority: -1})
	if e.Name() != "cache" || e.Priority() != -1 {
		t.Fatalf("Name, Priority = %q, %d", e.Name(), e.Priority())
	}
}

func TestExecutor_Acquire_emptyKey(t *testing.T) {
	s := server(t)
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	if _, err := e.Acquire(t.Context(), req("", time.Second)); !errors.Is(err, executor.ErrInvalidKey) {
		t.Fatalf("Acquire(\"\") = %v, want ErrInvalidKey", err)
	}
}

func TestExecutor_Acquire_layout(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, c, redis.Options{})
	key := uniq(t, "lock4j:")
	r := req(key, 10*time.Second)
	start := time.Now()
	l, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	// The key holds the owner, a NUL and the token as a plain string, with
	// the lease as its TTL; nothing else is written.
	if got, want := c.Get(t.Context(), key).Val(), r.Owner+"\x00"+strconv.FormatInt(l.Token(), 10); got != want {
		t.Fatalf("GET key = %q, want %q", got, want)
	}
	if ttl := c.PTTL(t.Context(), key).Val(); ttl <= 9*time.Second || ttl > 10*time.Second {
		t.Fatalf("PTTL key = %v, want about 10s", ttl)
	}
	if keys := c.Keys(t.Context(), "*"+key+"*").Val(); len(keys) != 1 {
		t.Fatalf("keys after an acquisition: %q, want only the lock", keys)
	}
	// The token of a free key is the server clock in microseconds.
	if lo, hi := start.Add(-time.Minute).UnixMicro(), time.Now().Add(time.Minute).UnixMicro(); l.Token() < lo || l.Token() > hi {
		t.Fatalf("first token %d, want the server time in µs (%d..%d)", l.Token(), lo, hi)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if keys := c.Keys(t.Context(), "*"+key+"*").Val(); len(keys) != 0 {
		t.Fatalf("keys after Release: %q, want none", keys)
	}
}

func TestExecutor_Acquire_tokens(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, c, redis.Options{})
	key := uniq(t, "tok:")
	next := func() int64 {
		t.Helper()
		l, err := e.Acquire(t.Context(), req(key, time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		return l.Token()
	}
	last := next()
	for range 50 {
		if got := next(); got <= last {
			t.Fatalf("token %d after %d, want more", got, last)
		} else {
			last = got
		}
	}
	// A holder's token far ahead of the clock (a Redlock raise, a clock
	// that went back): the next tokens stay above it, through the release.
	l, err := e.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ahead := l.Token() + 3_000_000 // 3s ahead of the clock
	if err := e.RaiseToken(t.Context(), key, ahead); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := next(); got <= ahead {
		t.Fatalf("token after a raise to %d = %d, want more", ahead, got)
	}
}

// TestExecutor_Acquire_sameOwner covers go-redis retrying an acquire script
// whose first reply was lost: the retry finds the key holding its own owner
// and gets the token instead of "held".
func TestExecutor_Acquire_sameOwner(t *testing.T) {
	s := server(t)
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	r := req(uniq(t, "same:"), time.Minute)
	l1, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatalf("Acquire with the holder's owner = %v, want the lease", err)
	}
	if l1.Token() != l2.Token() {
		t.Fatalf("tokens %d and %d, want equal", l1.Token(), l2.Token())
	}
}

func TestExecutor_Acquire_held(t *testing.T) {
	s := server(t)
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	key := uniq(t, "held:")
	l, err := e.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(context.WithoutCancel(t.Context()))
	_, err = e.Acquire(t.Context(), req(key, time.Minute))
	if !errors.Is(err, executor.ErrNotAcquired) || errors.Is(err, executor.ErrBackend) {
		t.Fatalf("Acquire of a held key = %v, want only ErrNotAcquired", err)
	}
}

func TestLease_Release_cancelledContext(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, c, redis.Options{})
	key := uniq(t, "rel:")
	l, err := e.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := l.Release(ctx); err != nil {
		t.Fatalf("Release with a cancelled context = %v", err)
	}
	if c.Exists(t.Context(), key).Val() != 0 {
		t.Fatal("key not released")
	}
	if stop := l.AfterLost(func() { t.Error("a released Redis lease reported itself lost") }); !stop() {
		t.Fatal("AfterLost of a Redis lease ran its function")
	}
}

// TestExecutor_Acquire_otherType covers a key of another type at the lock's
// name, such as Redisson's hash lock: it is held by someone else, not a
// backend failure, and a lease whose key was replaced by one is not held.
func TestExecutor_Acquire_otherType(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	key := uniq(t, "hash:")
	if err := c.HSet(t.Context(), key, "redisson-owner:1", 1).Err(); err != nil {
		t.Fatal(err)
	}
	c.PExpire(t.Context(), key, time.Minute)
	if _, err := e.Acquire(t.Context(), req(key, time.Minute)); !errors.Is(err, executor.ErrNotAcquired) || errors.Is(err, executor.ErrBackend) {
		t.Fatalf("Acquire of a hash key = %v, want only ErrNotAcquired", err)
	}

	key = uniq(t, "replaced:")
	l, err := e.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	c.Del(t.Context(), key)
	c.HSet(t.Context(), key, "redisson-owner:1", 1)
	if err := l.Renew(t.Context(), time.Minute); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Renew of a key replaced by a hash = %v, want ErrLockNotHeld", err)
	}
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Release of a key replaced by a hash = %v, want ErrLockNotHeld", err)
	}
	if c.Type(t.Context(), key).Val() != "hash" {
		t.Fatal("the foreign hash was touched")
	}
	c.Del(t.Context(), key)
}
