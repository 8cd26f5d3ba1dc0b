package reliability

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/internal/testwait"
)

// TestKeyCardinality acquires and releases 10k distinct keys (from 32
// goroutines), then 200 keys contended by two Templates, and then looks at
// what the backend keeps: no lock key, queue entry (Redis wait queues
// included) or lock node may remain; a remaining Redis key (the void marker
// of a lost reply) must not outlive its lock by more than the lease (30s,
// the watchdog's); etcd must hold nothing; ZooKeeper keeps one
// empty lock parent per key, a container node the server deletes some
// time after it empties (every 60s by default, at most 10000 a minute):
// under LOCK4GO_SOAK=1 the test waits for them to go. PostgreSQL may keep
// rows whose lease or queue entry expired (a waiter that left without a
// word): a sweep must remove every one.
func TestKeyCardinality(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		s := newSpace(e)
		tpl, ex := s.open(t, lock4go.Config{AcquireTimeout: 10 * time.Second})
		const n = 10000
		ctx := t.Context()
		memBefore := redisMemory(t, e)
		zaddBefore := redisCalls(t, e, "zadd")
		var next, failed atomic.Int64
		var firstErr, firstExcused sync.Once
		began := time.Now()
		var wg sync.WaitGroup
		for range 32 {
			wg.Go(func() {
				for {
					i := next.Add(1)
					if i > n {
						return
					}
					k := s.key("card:" + strconv.FormatInt(i, 10))
					l, err := tpl.Lock(ctx, k)
					if err == nil {
						err = l.Release(ctx)
					}
					switch {
					case err == nil:
					case excusedFailure(err):
						// The connection dropped (a busy machine delays a
						// heartbeat past its timeout): counted below.
						failed.Add(1)
						firstExcused.Do(func() { t.Logf("key %s: %v", k, err) })
					default:
						failed.Add(1)
						firstErr.Do(func() { t.Errorf("key %s: %v", k, err) })
					}
				}
			})
		}
		// Then contended keys from a second Template (a second process), so
		// that waiters queue: their queue entries must go too, and any
		// Redis queue key must carry a TTL.
		tpl2, _ := s.open(t, lock4go.Config{AcquireTimeout: 10 * time.Second})
		const contended, rounds = 200, 2000
		var round atomic.Int64
		for g := range 32 {
			wg.Go(func() {
				on := tpl
				if g%2 == 1 {
					on = tpl2
				}
				for {
					i := round.Add(1)
					if i > rounds {
						return
					}
					k := s.key("card:c:" + strconv.FormatInt(i/2%contended, 10))
					l, err := on.Lock(ctx, k)
					if err == nil {
						err = l.Release(ctx)
					}
					if err != nil {
						failed.Add(1)
						if excusedFailure(err) {
							firstExcused.Do(func() { t.Logf("key %s: %v", k, err) })
						} else {
							firstErr.Do(func() { t.Errorf("contended key %s: %v", k, err) })
						}
					}
				}
			})
		}
		wg.Wait()
		took := time.Since(began)
		if tpl.HeldLocks() != 0 || tpl2.HeldLocks() != 0 {
			t.Errorf("%d locks held after release", tpl.HeldLocks())
		}
		if f := failed.Load(); f > (n+rounds)/100 {
			t.Errorf("%d of %d lock-and-release rounds failed, more than 1%%", f, n+rounds)
		}
		inv := s.inventory(t)
		if len(inv.LockNodes) > 0 {
			// What a failed round or a departed waiter left is removed in
			// the background.
			testwait.Every(30*time.Second, readStep, func() bool { inv = s.inventory(t); return len(inv.LockNodes) == 0 })
		}
		if len(inv.LockNodes) != 0 {
			t.Errorf("%d lock entries left, e.g. %q", len(inv.LockNodes), inv.LockNodes[:min(3, len(inv.LockNodes))])
		}
		if len(inv.NoTTL) != 0 {
			t.Errorf("%d Redis keys without a TTL, e.g. %q", len(inv.NoTTL), inv.NoTTL[:min(3, len(inv.NoTTL))])
		}
		detail := ""
		switch e.kind {
		case Redis:
			maxTTL := redisMaxTTL(t, e, inv.Entries)
			if len(inv.Entries) > n+contended {
				t.Errorf("%d Redis keys for %d lock keys", len(inv.Entries), n+contended)
			}
			if maxTTL > 30*time.Second {
				t.Errorf("a Redis key left with a TTL of %v, more than the lease (30s)", maxTTL)
			}
			detail = fmt.Sprintf("%d keys left (void markers of lost replies), longest TTL %v; used_memory grew by %d bytes; waiters queued %d times",
				len(inv.Entries), maxTTL.Round(time.Millisecond), redisMemory(t, e)-memBefore, redisCalls(t, e, "zadd")-zaddBefore)
		case Postgres:
			detail = postgresLeft(t, s, ex, inv)
		case Etcd:
			if len(inv.Entries) != 0 {
				t.Errorf("%d etcd keys left under %q", len(inv.Entries), s.namespace())
			}
			detail = fmt.Sprintf("%d etcd keys", len(inv.Entries))
		case ZooKeeper:
			if len(inv.Parents) > n+contended {
				t.Errorf("%d lock parents for %d keys", len(inv.Parents), n+contended)
			}
			detail = fmt.Sprintf("%d empty lock parents (containers)", len(inv.Parents))
			if soak() {
				gone := testwait.Every(4*time.Minute, readStep, func() bool { return len(s.inventory(t).Parents) == 0 })
				if !gone {
					t.Errorf("lock parents still there 4 minutes later: %d", len(s.inventory(t).Parents))
				}
				detail += fmt.Sprintf(", all deleted by the server within 4 minutes: %v", gone)
			}
		}
		t.Logf("%s: %d keys locked and released, then %d contended rounds on %d keys, in %v (%d failed); left: %s",
			e.kind, n, rounds, contended, took.Round(time.Millisecond), failed.Load(), detail)
	})
}

// redisMemory returns Redis's used_memory, or 0 for other backends.
func redisMemory(t *testing.T, e *env) int64 { return redisInfo(t, e, "memory", "used_memory:") }

// redisCalls returns how many times Redis ran cmd (scripts' calls
// included), or 0 for other backends.
func redisCalls(t *testing.T, e *env, cmd string) int64 {
	return redisInfo(t, e, "commandstats", "cmdstat_"+cmd+":calls=")
}

// redisInfo returns the integer after prefix in INFO section (up to a
// comma), or 0 for other backends or a missing line.
func redisInfo(t *testing.T, e *env, section, prefix string) int64 {
	if e.kind != Redis {
		return 0
	}
	c := goredis.NewClient(&goredis.Options{Addr: e.srv.Addr()})
	defer c.Close()
	info, err := c.Info(context.Background(), section).Result()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			n, _ := strconv.ParseInt(strings.SplitN(v, ",", 2)[0], 10, 64)
			return n
		}
	}
	return 0
}

// redisMaxTTL returns the longest TTL among keys.
func redisMaxTTL(t *testing.T, e *env, keys []string) time.Duration {
	c := goredis.NewClient(&goredis.Options{Addr: e.srv.Addr()})
	defer c.Close()
	var longest time.Duration
	for _, k := range keys {
		d, err := c.PTTL(context.Background(), k).Result()
		if err != nil {
			t.Fatal(err)
		}
		longest = max(longest, d)
	}
	return longest
}

// excusedFailure reports whether a failed lock-and-release round failed
// because the backend could not be reached or the lock was lost meanwhile:
// the network is involved, so a few are tolerated.
func excusedFailure(err error) bool {
	return errors.Is(err, lock4go.ErrBackend) || errors.Is(err, lock4go.ErrLockNotHeld) || errors.Is(err, lock4go.ErrLockLost)
}
