package redis_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testwait"
)

// fired reports whether ch receives within d.
func fired(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

// numsub returns the number of subscribers of e's wake channel.
func numsub(t *testing.T, c *goredis.Client, e *redis.Executor) int64 {
	t.Helper()
	ch := redis.WakeChannel(e)
	return c.PubSubNumSub(t.Context(), ch).Val()[ch]
}

// warmWakes opens e's wake subscription with a watch of a key nobody
// holds, so that later watches are not the first (which signals at once).
func warmWakes(t *testing.T, e *redis.Executor) {
	t.Helper()
	w, stop := e.WatchRelease(t.Context(), uniq(t, "warm:"))
	stop()
	if !fired(w, time.Second) {
		t.Fatal("the first watch of an executor did not signal at once")
	}
}

// queueUp makes a waiting attempt of e on key, which must find it busy and
// queue e, then watches key as the Template does.
func queueUp(t *testing.T, e *redis.Executor, key string) (<-chan struct{}, func()) {
	t.Helper()
	mustQueue(t, e, key)
	return e.WatchRelease(t.Context(), key)
}

// take makes a waiting attempt of e on key, as a woken Template does.
func take(t *testing.T, e *redis.Executor, key string) (executor.Lease, error) {
	t.Helper()
	r := req(key, time.Minute)
	r.Wait = true
	return e.Acquire(t.Context(), r)
}

// queueOf returns the members of key's wait queue, head first.
func queueOf(t *testing.T, c *goredis.Client, key string) []string {
	t.Helper()
	m, err := c.ZRange(t.Context(), redis.QueueKey(key), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestExecutor_WatchRelease_oneSubscription checks that all waits of an
// executor share one subscription, kept between waits: no SUBSCRIBE or
// UNSUBSCRIBE per wait.
func TestExecutor_WatchRelease_oneSubscription(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	if n := numsub(t, c, e); n != 0 {
		t.Fatalf("NUMSUB before any wait = %d, want 0 (subscribed on first use)", n)
	}
	warmWakes(t, e)
	if n := numsub(t, c, e); n != 1 {
		t.Fatalf("NUMSUB after the first watch = %d, want 1 (confirmed before WatchRelease returned)", n)
	}
	before := subscribeCalls(t, c)
	for i := range 20 {
		_, stop := e.WatchRelease(t.Context(), uniq(t, "w:")+string(rune('a'+i)))
		stop()
	}
	if n := numsub(t, c, e); n != 1 {
		t.Fatalf("NUMSUB after 20 more watches = %d, want 1", n)
	}
	if d := subscribeCalls(t, c) - before; d != 0 {
		t.Fatalf("20 watches sent %d SUBSCRIBE or UNSUBSCRIBE commands, want 0", d)
	}
}

// subscribeCalls returns how many SUBSCRIBE and UNSUBSCRIBE commands the
// server has run.
func subscribeCalls(t *testing.T, c *goredis.Client) int64 {
	t.Helper()
	stats := commandStats(t, c)
	return stats["subscribe"].calls + stats["unsubscribe"].calls
}

// TestExecutor_WatchRelease_fifoAcrossExecutors checks that a release wakes
// the executor that queued first, and only it, which then takes the key
// before anyone else: a newcomer that does not wait and the second waiter
// find it busy.
func TestExecutor_WatchRelease_fifoAcrossExecutors(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	e1 := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	e2 := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	warmWakes(t, e1)
	warmWakes(t, e2)
	key := uniq(t, "fifo:")
	l := mustHold(t, holder, key)
	w1, stop1 := queueUp(t, e1, key)
	defer stop1()
	w2, stop2 := queueUp(t, e2, key)
	defer stop2()
	if q := queueOf(t, c, key); len(q) != 2 || q[0] != redis.Member(e1) || q[1] != redis.Member(e2) {
		t.Fatalf("queue = %v, want [%s %s]", q, redis.Member(e1), redis.Member(e2))
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(w1, 2*time.Second) {
		t.Fatal("the head of the queue was not woken by the release")
	}
	if fired(w2, 50*time.Millisecond) {
		t.Fatal("the second waiter was woken by a release handed to the first")
	}
	grantedElsewhere(t, holder, e2, key)
	l1, err := take(t, e1, key)
	if err != nil {
		t.Fatalf("the woken head's attempt = %v", err)
	}
	if l1.Token() <= l.Token() {
		t.Fatalf("token %d after %d: not increasing", l1.Token(), l.Token())
	}
	if err := l1.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(w2, 2*time.Second) {
		t.Fatal("the second waiter was not woken by the next release")
	}
	if _, err := take(t, e2, key); err != nil {
		t.Fatalf("the second waiter's attempt after its wake = %v", err)
	}
	if q := queueOf(t, c, key); len(q) != 0 {
		t.Fatalf("queue after both waiters took the key = %v, want empty", q)
	}
}

// grantedElsewhere checks that neither a newcomer (through holder) nor
// the second waiter e2 takes key, granted to the head of its queue.
func grantedElsewhere(t *testing.T, holder, e2 *redis.Executor, key string) {
	t.Helper()
	if _, err := holder.Acquire(t.Context(), req(key, time.Minute)); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("a newcomer's attempt on a key handed to a waiter = %v, want ErrNotAcquired", err)
	}
	if _, err := take(t, e2, key); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("the second waiter's attempt on a key handed to the first = %v, want ErrNotAcquired", err)
	}
}

// TestExecutor_WatchRelease_otherKey checks that a release wakes no watcher
// of another key.
func TestExecutor_WatchRelease_otherKey(t *testing.T) {
	s := server(t)
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	warmWakes(t, e)
	key, other := uniq(t, "w:"), uniq(t, "other:")
	la, err := holder.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Acquire(t.Context(), req(other, time.Minute)); err != nil {
		t.Fatal(err)
	}
	w, stop := queueUp(t, e, key)
	defer stop()
	wo, stopo := queueUp(t, e, other)
	defer stopo()
	if err := la.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(w, 2*time.Second) {
		t.Fatal("watcher not woken by the release of its key")
	}
	if fired(wo, 50*time.Millisecond) {
		t.Fatal("a watcher of another key was woken")
	}
}

// TestExecutor_WatchRelease_wakeBeforeWatch checks that a wake that comes
// between the attempt that queued and WatchRelease is not lost.
func TestExecutor_WatchRelease_wakeBeforeWatch(t *testing.T) {
	s := server(t)
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	warmWakes(t, e)
	key := uniq(t, "early:")
	l := mustHold(t, holder, key)
	mustQueue(t, e, key)
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, s.Addr())
	if !testwait.Until(2*time.Second, func() bool {
		v, _ := c.Get(t.Context(), key).Result()
		return strings.HasPrefix(v, "lock4go:claim:")
	}) {
		t.Fatal("the release did not hand the key to the queued executor")
	}
	time.Sleep(20 * time.Millisecond) // let the wake reach e, with no watcher yet
	w, stop := e.WatchRelease(t.Context(), key)
	defer stop()
	if !fired(w, time.Second) {
		t.Fatal("a wake that came before WatchRelease was lost")
	}
}

func TestExecutor_WatchRelease_afterClose(t *testing.T) {
	s := server(t)
	e, err := redis.New(newClient(t, s.Addr()), redis.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	w, stop := e.WatchRelease(t.Context(), uniq(t, "w:"))
	<-w // the first watch signals at once
	if err := e.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	// A waiter watching when Close began tries again, and learns of it.
	if !fired(w, time.Second) {
		t.Fatal("a watch open when Close began did not fire")
	}
	stop() // after Close: must not block or panic
	w, stop = e.WatchRelease(t.Context(), uniq(t, "w:"))
	stop()
	if !fired(w, time.Second) {
		t.Fatal("a watch made after Close is not ready at once")
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

// TestExecutor_WatchRelease_cancelledContext checks that the first watch,
// with a context that has ended, returns at once instead of waiting for the
// server's confirmation, and still subscribes: a later release wakes it.
func TestExecutor_WatchRelease_cancelledContext(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	const subscribeTimeout = 5 * time.Second
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{SubscribeTimeout: subscribeTimeout})
	key := uniq(t, "w:")
	l := mustHold(t, holder, key)
	mustQueue(t, e, key)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	start := time.Now()
	w, stop := e.WatchRelease(ctx, key)
	defer stop()
	if took := time.Since(start); took >= subscribeTimeout/2 {
		t.Fatalf("WatchRelease with a cancelled context took %v: it waited for the confirmation", took)
	}
	<-w // the first watch signals at once
	if !testwait.Until(2*time.Second, func() bool { return numsub(t, c, e) == 1 }) {
		t.Fatal("WatchRelease with a cancelled context did not subscribe")
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(w, 2*time.Second) {
		t.Fatal("watch with a cancelled context not woken by the release")
	}
}

// mustQueue makes a waiting attempt of e on key, which must find it busy
// (and queue e).
func mustQueue(t *testing.T, e *redis.Executor, key string) {
	t.Helper()
	r := req(key, time.Minute)
	r.Wait = true
	if _, err := e.Acquire(t.Context(), r); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("waiting attempt on a busy key = %v, want ErrNotAcquired", err)
	}
}

// mustHold takes key through e for a minute.
func mustHold(t *testing.T, e *redis.Executor, key string) executor.Lease {
	t.Helper()
	l, err := e.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// handToFirst has holder take key, first and then second queue for it
// (watching until the test ends), and holder release it: first must be
// woken. It returns the holder's lease and the second's watch.
func handToFirst(t *testing.T, holder, first, second *redis.Executor, key string) (executor.Lease, <-chan struct{}) {
	t.Helper()
	hl := mustHold(t, holder, key)
	w1, stop1 := queueUp(t, first, key)
	t.Cleanup(stop1)
	w2, stop2 := queueUp(t, second, key)
	t.Cleanup(stop2)
	if err := hl.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(w1, 2*time.Second) {
		t.Fatal("the head was not woken")
	}
	return hl, w2
}

// TestExecutor_WatchRelease_registeredBeforeSubscription checks that a
// waiter that registered while its executor's wake subscription was not
// active yet is told to ask the server at once when it watches: the
// release that granted it the key meanwhile published to nobody (before,
// such a waiter waited for its quiet poll, a second).
func TestExecutor_WatchRelease_registeredBeforeSubscription(t *testing.T) {
	s := server(t)
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	key := uniq(t, "early:")
	l := mustHold(t, holder, key)
	mustQueue(t, e, key) // e has no subscription yet
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	warmWakes(t, e) // the subscription starts, for another key
	w, stop := e.WatchRelease(t.Context(), key)
	defer stop()
	if !fired(w, 100*time.Millisecond) {
		t.Fatal("a waiter registered before the subscription was not told to ask the server")
	}
	if _, err := take(t, e, key); err != nil {
		t.Fatalf("the waiter's attempt after its watch = %v, want the grant confirmed", err)
	}
}
