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
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testwait"
)

// TestKeyCardinality acquires and releases 1000 distinct keys (10000
// under make soak) from 16 goroutines (32), then 200 rounds (2000) on 20
// keys (200) contended by two Templates, and then looks at what the
// backend keeps: no lock key, queue entry (Redis wait queues included) or
// lock node may remain; a remaining Redis key (the void marker of a lost
// reply) must not outlive its lock by more than 30s, the void marker's
// floor; etcd must hold nothing; ZooKeeper keeps one empty lock parent per
// key, a container node the server deletes some time after it empties
// (every 60s by default, at most 10000 a minute): under make soak the test
// waits for them to go. PostgreSQL may keep rows whose lease or queue entry
// expired (a waiter that left without a word): a sweep must remove every
// one.
//
// The test is about what stays behind, not about time: its lease (10s),
// acquire timeout (30s) and release timeout (10s) are long enough that a
// busy machine does not fail rounds; the few that fail all the same
// (the connection dropped, a lease lost) must be fewer than 1%.
func TestKeyCardinality(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		long := *e
		long.lease = cardinalityLease
		s := newSpace(&long)
		cfg := lock4go.Config{AcquireTimeout: 30 * time.Second, ReleaseTimeout: 10 * time.Second}
		tpl, ex := s.open(t, cfg)
		tpl2, _ := s.open(t, cfg) // a second process for the contended keys
		c := &cardinality{t: t, s: s,
			distinct: pick(1000, 10000), contended: pick(20, 200), rounds: pick(200, 2000)}
		memBefore, zaddBefore := redisMemory(t, e), redisCalls(t, e, "zadd")
		began := time.Now()
		var wg sync.WaitGroup
		for g := range pick(16, 32) {
			wg.Go(func() { c.distinctRounds(tpl) })
			other := tpl
			if g%2 == 1 {
				other = tpl2
			}
			wg.Go(func() { c.contendedRounds(other) })
		}
		wg.Wait()
		took := time.Since(began)
		if tpl.HeldLocks() != 0 || tpl2.HeldLocks() != 0 {
			t.Errorf("%d and %d locks held after release", tpl.HeldLocks(), tpl2.HeldLocks())
		}
		total := int64(c.distinct + c.rounds)
		if f := c.failed.Load(); f > total/100 {
			t.Errorf("%d of %d lock-and-release rounds failed, more than 1%%", f, total)
		}
		detail := c.residue(ex)
		if e.kind == Redis {
			detail += fmt.Sprintf("; used_memory grew by %d bytes; waiters queued %d times",
				redisMemory(t, e)-memBefore, redisCalls(t, e, "zadd")-zaddBefore)
		}
		t.Logf("%s: %d keys locked and released, then %d contended rounds on %d keys, in %v (%d failed); left: %s",
			e.kind, c.distinct, c.rounds, c.contended, took.Round(time.Millisecond), c.failed.Load(), detail)
	})
}

// cardinalityLease is TestKeyCardinality's lease: Config.Expire, the etcd
// lease TTL, the ZooKeeper session timeout.
const cardinalityLease = 10 * time.Second

// cardinality is one backend's run of TestKeyCardinality.
type cardinality struct {
	t                           *testing.T
	s                           space
	distinct, contended, rounds int
	next, round, failed         atomic.Int64
	firstErr, firstExcused      sync.Once
}

// distinctRounds locks and releases the next distinct key until none is
// left.
func (c *cardinality) distinctRounds(tpl *lock4go.Template) {
	for {
		i := c.next.Add(1)
		if i > int64(c.distinct) {
			return
		}
		c.lockRelease(tpl, c.s.key("card:"+strconv.FormatInt(i, 10)))
	}
}

// contendedRounds locks and releases the contended keys in turn, two
// rounds per key in a row, until the rounds are done: waiters queue, and
// their queue entries must go too.
func (c *cardinality) contendedRounds(tpl *lock4go.Template) {
	for {
		i := c.round.Add(1)
		if i > int64(c.rounds) {
			return
		}
		c.lockRelease(tpl, c.s.key("card:c:"+strconv.FormatInt(i/2%int64(c.contended), 10)))
	}
}

// lockRelease locks key and releases it. A round that failed because the
// backend could not be reached or the lock was lost meanwhile is counted;
// any other failure fails the test.
func (c *cardinality) lockRelease(tpl *lock4go.Template, key string) {
	ctx := c.t.Context()
	l, err := tpl.Lock(ctx, key)
	if err == nil {
		err = l.Release(ctx)
	}
	if err == nil {
		return
	}
	c.failed.Add(1)
	if excusedFailure(err) {
		c.firstExcused.Do(func() { c.t.Logf("key %s: %v", key, err) })
		return
	}
	c.firstErr.Do(func() { c.t.Errorf("key %s: %v", key, err) })
}

// residue checks what the backend kept after the rounds and describes it.
func (c *cardinality) residue(ex executor.Executor) string {
	t, s := c.t, c.s
	inv := s.inventory(t)
	if len(inv.LockNodes) > 0 {
		// What a failed round or a departed waiter left is removed in
		// the background, or ends with its lease.
		testwait.Every(3*cardinalityLease, readStep, func() bool { inv = s.inventory(t); return len(inv.LockNodes) == 0 })
	}
	if len(inv.LockNodes) != 0 {
		t.Errorf("%d lock entries left, e.g. %q", len(inv.LockNodes), inv.LockNodes[:min(3, len(inv.LockNodes))])
	}
	if len(inv.NoTTL) != 0 {
		t.Errorf("%d Redis keys without a TTL, e.g. %q", len(inv.NoTTL), inv.NoTTL[:min(3, len(inv.NoTTL))])
	}
	keys := c.distinct + c.contended
	switch s.e.kind {
	case Redis:
		return redisResidue(t, s.e, inv, keys)
	case Postgres, MySQL:
		return tablesLeft(t, s, ex, inv)
	case Etcd:
		if len(inv.Entries) != 0 {
			t.Errorf("%d etcd keys left under %q", len(inv.Entries), s.namespace())
		}
		return fmt.Sprintf("%d etcd keys", len(inv.Entries))
	case ZooKeeper:
		return zkResidue(t, s, inv, keys)
	}
	return ""
}

// redisResidue checks the Redis keys left for keys lock keys: no more than
// one each, none living longer than 30s.
func redisResidue(t *testing.T, e *env, inv inventory, keys int) string {
	maxTTL := redisMaxTTL(t, e, inv.Entries)
	if len(inv.Entries) > keys {
		t.Errorf("%d Redis keys for %d lock keys", len(inv.Entries), keys)
	}
	if maxTTL > 30*time.Second {
		t.Errorf("a Redis key left with a TTL of %v, more than 30s", maxTTL)
	}
	return fmt.Sprintf("%d keys left (void markers of lost replies), longest TTL %v", len(inv.Entries), maxTTL.Round(time.Millisecond))
}

// zkResidue checks the ZooKeeper lock parents left for keys lock keys: no
// more than one each; under make soak, all deleted by the server within 4
// minutes.
func zkResidue(t *testing.T, s space, inv inventory, keys int) string {
	if len(inv.Parents) > keys {
		t.Errorf("%d lock parents for %d keys", len(inv.Parents), keys)
	}
	detail := fmt.Sprintf("%d empty lock parents (containers)", len(inv.Parents))
	if soak() {
		gone := testwait.Every(4*time.Minute, time.Second, func() bool { return len(s.inventory(t).Parents) == 0 })
		if !gone {
			t.Errorf("lock parents still there 4 minutes later: %d", len(s.inventory(t).Parents))
		}
		detail += fmt.Sprintf(", all deleted by the server within 4 minutes: %v", gone)
	}
	return detail
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
