package redis_test

import (
	"context"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executors/redis"
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

// numsub returns the number of subscribers of key's release channel.
func numsub(t *testing.T, c *goredis.Client, key string) int64 {
	t.Helper()
	ch := redis.ChannelName(key)
	return c.PubSubNumSub(t.Context(), ch).Val()[ch]
}

func TestExecutor_WatchRelease_refCounted(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	key := uniq(t, "w:")
	_, stop1 := e.WatchRelease(t.Context(), key)
	_, stop2 := e.WatchRelease(t.Context(), key)
	if n := numsub(t, c, key); n != 1 {
		t.Fatalf("NUMSUB after two watches = %d, want 1 (confirmed before WatchRelease returned)", n)
	}
	stop1()
	stop1() // later calls do nothing
	time.Sleep(50 * time.Millisecond)
	if n := numsub(t, c, key); n != 1 {
		t.Fatalf("NUMSUB with one watch left = %d, want 1", n)
	}
	stop2()
	if !eventually(2*time.Second, func() bool { return numsub(t, c, key) == 0 }) {
		t.Fatal("channel still subscribed after the last stop")
	}
	// Watching again subscribes again.
	_, stop3 := e.WatchRelease(t.Context(), key)
	defer stop3()
	if n := numsub(t, c, key); n != 1 {
		t.Fatalf("NUMSUB after a new watch = %d, want 1", n)
	}
}

func TestExecutor_WatchRelease_fanOut(t *testing.T) {
	s := server(t)
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	key := uniq(t, "w:")
	l, err := holder.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	w1, stop1 := e.WatchRelease(t.Context(), key)
	defer stop1()
	w2, stop2 := e.WatchRelease(t.Context(), key)
	defer stop2()
	other, stop3 := e.WatchRelease(t.Context(), uniq(t, "other:"))
	defer stop3()
	if fired(w1, 50*time.Millisecond) {
		t.Fatal("watch fired before any release")
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(w1, 2*time.Second) || !fired(w2, 2*time.Second) {
		t.Fatal("a watcher was not woken by the release")
	}
	if fired(other, 50*time.Millisecond) {
		t.Fatal("a watcher of another key was woken")
	}
}

func TestExecutor_WatchRelease_afterClose(t *testing.T) {
	s := server(t)
	e, err := redis.New(newClient(t, s.Addr()), redis.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	w, stop := e.WatchRelease(t.Context(), uniq(t, "w:"))
	if err := e.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	stop() // after Close: must not block or panic
	if fired(w, 20*time.Millisecond) {
		t.Fatal("watch fired after Close")
	}
	w, stop = e.WatchRelease(t.Context(), uniq(t, "w:"))
	stop()
	if w != nil {
		t.Fatal("WatchRelease after Close returned a live channel")
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}

// TestExecutor_WatchRelease_cancelledContext checks that a watch whose
// context has ended returns at once instead of waiting for the server's
// confirmation, and still subscribes: a later release wakes it, and stop
// unsubscribes.
func TestExecutor_WatchRelease_cancelledContext(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	const subscribeTimeout = 5 * time.Second
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{SubscribeTimeout: subscribeTimeout})
	key := uniq(t, "w:")
	l, err := holder.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	start := time.Now()
	w, stop := e.WatchRelease(ctx, key)
	if took := time.Since(start); took >= subscribeTimeout/2 {
		t.Fatalf("WatchRelease with a cancelled context took %v: it waited for the confirmation", took)
	}
	if !eventually(2*time.Second, func() bool { return numsub(t, c, key) == 1 }) {
		t.Fatal("WatchRelease with a cancelled context did not subscribe")
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(w, 2*time.Second) {
		t.Fatal("watch with a cancelled context not woken by the release")
	}
	stop()
	if !eventually(2*time.Second, func() bool { return numsub(t, c, key) == 0 }) {
		t.Fatal("channel still subscribed after stop")
	}
}
