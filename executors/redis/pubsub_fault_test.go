package redis_test

import (
	"testing"
	"time"

	"github.com/lock4go/lock4go/executors/redis"
)

// TestFault_pubsubKilled kills the shared pub/sub connection while a waiter
// watches: go-redis reconnects and re-subscribes, the waiter is woken (a
// release may have been missed meanwhile), and releases wake waiters again.
func TestFault_pubsubKilled(t *testing.T) {
	s := server(t)
	admin := newClient(t, s.Addr())
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	warmWakes(t, e)
	key := uniq(t, "pubsub:")
	l := mustHold(t, holder, key)
	w, stop := queueUp(t, e, key)
	defer stop()

	killed, err := admin.Do(t.Context(), "CLIENT", "KILL", "TYPE", "pubsub").Int()
	if err != nil || killed < 1 {
		t.Fatalf("CLIENT KILL TYPE pubsub = %d, %v", killed, err)
	}
	start := time.Now()
	if !fired(w, 2*time.Second) {
		t.Fatal("waiter not woken after its pub/sub connection was killed")
	}
	t.Logf("waiter woken %v after the kill (re-subscription)", time.Since(start))
	if n := numsub(t, admin, e); n != 1 {
		t.Fatalf("NUMSUB after re-subscription = %d, want 1", n)
	}

	// Notifications work again, for the old watch and a new one.
	other := uniq(t, "pubsub-other:")
	l2, err := holder.Acquire(t.Context(), req(other, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	w2, stop2 := queueUp(t, e, other)
	defer stop2()
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(w, 2*time.Second) {
		t.Fatal("waiter not woken by a release after the reconnect")
	}
	if err := l2.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(w2, 2*time.Second) {
		t.Fatal("new waiter not woken by a release after the reconnect")
	}
}

// TestFault_pubsubDown checks that watches return while pub/sub cannot
// answer, and recover when it can.
func TestFault_pubsubDown(t *testing.T) {
	s := server(t)
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	const subscribeTimeout = 300 * time.Millisecond
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{SubscribeTimeout: subscribeTimeout})
	key := uniq(t, "down:")
	l := mustHold(t, holder, key)
	mustQueue(t, e, key)
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Resume() })

	start := time.Now()
	w, stop := e.WatchRelease(t.Context(), key)
	defer stop()
	if took := time.Since(start); took > subscribeTimeout+200*time.Millisecond {
		t.Fatalf("WatchRelease on a paused server took %v", took)
	}
	<-w // the first watch signals at once
	// Known to lag: the next watch does not wait for its confirmation, so
	// it costs a waiter less than one poll at the Template's default retry
	// interval (100ms), let alone the subscribe timeout.
	start = time.Now()
	_, stop2 := e.WatchRelease(t.Context(), uniq(t, "down2:"))
	stop2()
	if took := time.Since(start); took >= 100*time.Millisecond {
		t.Fatalf("second WatchRelease on a paused server took %v", took)
	}

	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	// The late confirmation wakes the waiter (it may have missed a release),
	// and the release wakes it too.
	if !fired(w, 5*time.Second) {
		t.Fatal("waiter not woken after pub/sub came back")
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(w, 2*time.Second) {
		t.Fatal("waiter not woken by the release after pub/sub came back")
	}
	c := newClient(t, s.Addr())
	if n := numsub(t, c, e); n != 1 {
		t.Fatalf("NUMSUB after pub/sub came back = %d, want 1", n)
	}
}
