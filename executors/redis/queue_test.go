package redis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testwait"
)

// lockAsync runs tpl.Lock(key) with a retry interval of retry in a
// goroutine, releases the lock at once, and reports the outcome and when
// the lock was granted.
func lockAsync(t *testing.T, tpl *lock4go.Template, key string, retry time.Duration) <-chan waitResult {
	ch := make(chan waitResult, 1)
	go func() {
		l, err := tpl.Lock(t.Context(), key, lock4go.WithAcquireTimeout(20*time.Second), lock4go.WithRetryInterval(retry))
		r := waitResult{at: time.Now(), err: err}
		if err == nil {
			r.err = l.Release(context.WithoutCancel(t.Context()))
		}
		ch <- r
	}()
	return ch
}

type waitResult struct {
	at  time.Time
	err error
}

// newTemplate returns a Template over a fresh executor (its own client), as
// another process would have.
func newTemplate(t *testing.T, o redis.Options) (*lock4go.Template, *redis.Executor) {
	t.Helper()
	e := newExecutor(t, newClient(t, server(t).Addr(), ctxTimeouts), o)
	tpl, err := lock4go.New(lock4go.Config{Logger: testLogger(t)}, e)
	if err != nil {
		t.Fatal(err)
	}
	return tpl, e
}

// queueLen returns how many executors wait in key's queue.
func queueLen(t *testing.T, key string) int64 {
	return newClient(t, server(t).Addr()).ZCard(t.Context(), redis.QueueKey(key)).Val()
}

// TestQueue_deadWaiterSkipped checks Redisson's fair-lock bug does not
// happen here: a waiter whose process died after queuing (its executor gone
// without leaving the queue) costs the next live waiter one claim window,
// after which the live waiter's retry takes the key; the dead waiter is
// then passed over.
func TestQueue_deadWaiterSkipped(t *testing.T) {
	s := server(t)
	const claim, retry = 150 * time.Millisecond, 50 * time.Millisecond
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	key := uniq(t, "dead:")
	l := mustHold(t, holder, key)
	// The dead waiter: it queued, then its process ended (nothing closes
	// the executor's queue entry: a kill -9).
	dead := newExecutor(t, newClient(t, s.Addr()), redis.Options{ClaimWindow: claim})
	mustQueue(t, dead, key)
	live, _ := newTemplate(t, redis.Options{ClaimWindow: claim})
	got := lockAsync(t, live, key, retry)
	if !testwait.Until(5*time.Second, func() bool { return queueLen(t, key) == 2 }) {
		t.Fatal("the live waiter did not queue behind the dead one")
	}
	released := time.Now()
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	res := <-got
	if res.err != nil {
		t.Fatalf("live waiter: %v", res.err)
	}
	took := res.at.Sub(released)
	t.Logf("live waiter got the key %v after the release (claim window %v, retry interval %v)", took, claim, retry)
	if took < claim {
		t.Fatalf("live waiter got the key %v after the release, inside the dead waiter's claim window %v", took, claim)
	}
	// Bounded by the claim window plus one retry interval; the slack is for
	// a busy machine's scheduling, far below Redisson's ~5 s per dead waiter.
	if limit := claim + retry + time.Second; took > limit {
		t.Fatalf("live waiter got the key %v after the release, want within %v", took, limit)
	}
	// The dead waiter stays in the queue, passed over as stalled (its next
	// attempt would give it the next turn), until the queue expires.
	q := newClient(t, s.Addr()).ZRangeWithScores(t.Context(), redis.QueueKey(key), 0, -1).Val()
	if len(q) > 1 || (len(q) == 1 && (q[0].Member != redis.Member(dead) || q[0].Score > -2e16)) {
		t.Fatalf("queue after the waits ended = %v, want at most the dead waiter, stalled", q)
	}
}

// TestQueue_evictedWaiter checks that a waiter whose queue entry vanished
// (the queue expired or was deleted, or its claim lapsed while it was
// slow) does not hang: its retry takes the key after the release.
func TestQueue_evictedWaiter(t *testing.T) {
	s := server(t)
	const retry = 50 * time.Millisecond
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	key := uniq(t, "evicted:")
	l := mustHold(t, holder, key)
	waiter, _ := newTemplate(t, redis.Options{})
	got := lockAsync(t, waiter, key, retry)
	if !testwait.Until(5*time.Second, func() bool { return queueLen(t, key) == 1 }) {
		t.Fatal("the waiter did not queue")
	}
	c := newClient(t, s.Addr())
	if err := c.Del(t.Context(), redis.QueueKey(key)).Err(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-got:
		if res.err != nil {
			t.Fatalf("evicted waiter: %v", res.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an evicted waiter hung after the release")
	}
}

// TestQueue_keysExpire checks that a wait queue carries a TTL, set again at
// every registration (it expires after the last one, so the queues of dead
// waiters go), and that an attempt that does not wait never queues.
func TestQueue_keysExpire(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	key := uniq(t, "ttl:")
	if _, err := holder.Acquire(t.Context(), req(key, time.Minute)); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
		r := req(key, time.Minute)
		r.Wait = true
		if _, err := e.Acquire(t.Context(), r); !errors.Is(err, executor.ErrNotAcquired) {
			t.Fatalf("waiter %d: %v, want ErrNotAcquired", i, err)
		}
		d := c.PTTL(t.Context(), redis.QueueKey(key)).Val()
		if d <= 20*time.Second || d > 30*time.Second {
			t.Fatalf("PTTL of the queue after registration %d = %v, want about 30s", i, d)
		}
	}
	// A key that does not wait never queues.
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	if _, err := e.Acquire(t.Context(), req(key, time.Minute)); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("non-waiting attempt = %v, want ErrNotAcquired", err)
	}
	if n := c.ZCard(t.Context(), redis.QueueKey(key)).Val(); n != 2 {
		t.Fatalf("queue holds %d executors, want 2 (a non-waiting attempt queued)", n)
	}
}

// TestQueue_fifoAcrossTemplates checks that waiters of four Templates (four
// processes) get a key in the order they came, each woken by the release
// before it, with the retry interval far away.
func TestQueue_fifoAcrossTemplates(t *testing.T) {
	s := server(t)
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	key := uniq(t, "fifo:")
	l := mustHold(t, holder, key)
	const n = 4
	var waits []<-chan waitResult
	for i := range n {
		tpl, _ := newTemplate(t, redis.Options{})
		waits = append(waits, lockAsync(t, tpl, key, 10*time.Second))
		if !testwait.Until(5*time.Second, func() bool { return queueLen(t, key) == int64(i+1) }) {
			t.Fatalf("waiter %d did not queue", i)
		}
	}
	released := time.Now()
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	prev := released
	for i, w := range waits {
		res := <-w
		if res.err != nil {
			t.Fatalf("waiter %d: %v", i, res.err)
		}
		if res.at.Before(prev) {
			t.Fatalf("waiter %d got the key before waiter %d: not in arrival order", i, i-1)
		}
		prev = res.at
	}
	// With a 10 s retry interval, only wakes can explain this.
	if took := prev.Sub(released); took > 5*time.Second {
		t.Fatalf("%d hand-offs took %v: waiters were not woken", n, took)
	}
	t.Logf("%d hand-offs across Templates in %v", n, prev.Sub(released))
}

// TestQueue_followersAlone checks that a take with followers queues
// nothing when nobody else is queued.
func TestQueue_followersAlone(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	alone := req(uniq(t, "alone:"), time.Minute)
	alone.Wait, alone.Followers = true, true
	la, err := e.Acquire(t.Context(), alone)
	if err != nil {
		t.Fatal(err)
	}
	if q := queueOf(t, c, alone.Key); len(q) != 0 {
		t.Fatalf("queue after a take with followers and nobody else waiting = %v, want empty", q)
	}
	_ = la.Release(t.Context())
}

// TestQueue_followers checks that a waiter that confirms a grant while
// another executor is queued, and has followers in its own process, is
// queued again behind that one by its release, which grants the key to the
// other executor; that the follower's next waiting attempt is answered
// without a round trip; and that the key then goes to the follower's
// executor by the other's release.
func TestQueue_followers(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	other := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	warmWakes(t, e)
	warmWakes(t, other)
	key := uniq(t, "followers:")
	_, wo := handToFirst(t, holder, e, other, key)
	r := req(key, time.Minute)
	r.Wait, r.Followers = true, true
	l, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	if q := queueOf(t, c, key); len(q) != 1 || q[0] != redis.Member(other) {
		t.Fatalf("queue after a confirmation with followers = %v, want [%s]", q, redis.Member(other))
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if q := queueOf(t, c, key); len(q) != 1 || q[0] != redis.Member(e) {
		t.Fatalf("queue after the release with followers = %v, want [%s]", q, redis.Member(e))
	}
	if !fired(wo, 2*time.Second) {
		t.Fatal("the executor queued first was not woken")
	}
	followerTurn(t, c, e, other, key)
}

// followerTurn checks that the follower's first attempt on key is answered
// without a round trip, and that e is woken only after other, woken
// first, took the key and released it.
func followerTurn(t *testing.T, c *goredis.Client, e, other *redis.Executor, key string) {
	t.Helper()
	before := commandStats(t, c)["evalsha"].calls
	mustQueue(t, e, key)
	if d := commandStats(t, c)["evalsha"].calls - before; d != 0 {
		t.Fatalf("the follower's first attempt ran %d scripts, want 0 (answered locally)", d)
	}
	w, stop := e.WatchRelease(t.Context(), key)
	defer stop()
	if fired(w, 50*time.Millisecond) {
		t.Fatal("the follower was woken before the executor queued ahead of it had the key")
	}
	ol, err := take(t, other, key)
	if err != nil {
		t.Fatalf("the woken executor's attempt = %v", err)
	}
	if err := ol.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(w, 2*time.Second) {
		t.Fatal("the follower was not woken by the next release")
	}
	if _, err := take(t, e, key); err != nil {
		t.Fatalf("the woken follower's attempt = %v", err)
	}
}

// TestQueue_strictFIFO checks the strict mode: an attempt that finds the
// key free while another executor heads its queue hands the key to that
// executor and queues behind it; the default takes the free key.
func TestQueue_strictFIFO(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	for _, strict := range []bool{false, true} {
		holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{StrictFIFO: strict})
		waiter := newExecutor(t, newClient(t, s.Addr()), redis.Options{StrictFIFO: strict})
		newcomer := newExecutor(t, newClient(t, s.Addr()), redis.Options{StrictFIFO: strict})
		warmWakes(t, waiter)
		key := uniq(t, "strict:")
		// The waiter queues; the lock then expires without a release, so
		// the key is free while the waiter is queued.
		if _, err := holder.Acquire(t.Context(), req(key, 100*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		w, stop := queueUp(t, waiter, key)
		if !testwait.Until(5*time.Second, func() bool { return c.Exists(t.Context(), key).Val() == 0 }) {
			t.Fatal("the lease did not expire")
		}
		l, err := take(t, newcomer, key)
		switch {
		case !strict && err != nil:
			t.Fatalf("default: a newcomer's attempt on a free key = %v, want a lease (bounded barging)", err)
		case strict && !errors.Is(err, executor.ErrNotAcquired):
			t.Fatalf("strict: a newcomer's attempt on a free key with a waiter queued = %v, want ErrNotAcquired", err)
		case strict:
			if !fired(w, 2*time.Second) {
				t.Fatal("strict: the queued waiter was not handed the key")
			}
			if q := queueOf(t, c, key); len(q) != 1 || q[0] != redis.Member(newcomer) {
				t.Fatalf("strict: queue = %v, want the newcomer only", q)
			}
			if l, err = take(t, waiter, key); err != nil {
				t.Fatalf("strict: the woken waiter's attempt = %v", err)
			}
		}
		stop()
		_ = l.Release(t.Context())
	}
}
