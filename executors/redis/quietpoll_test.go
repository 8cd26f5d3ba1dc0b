package redis_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
)

// TestAcquire_quietPoll checks that a waiter standing in the queue, its
// subscription healthy and no wake since, asks the server at most once a
// second: the attempt that queued it counts as its poll, and its retries
// within the second make no round trip. A wake makes the next attempt ask
// (and take the claim).
func TestAcquire_quietPoll(t *testing.T) {
	s := server(t)
	admin := newClient(t, s.Addr())
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	waiter := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	warmWakes(t, waiter)
	key := uniq(t, "quiet:")
	l := mustHold(t, holder, key)
	w, stop := queueUp(t, waiter, key)
	defer stop()
	attempt := func() error {
		r := req(key, time.Minute)
		r.Wait = true
		_, err := waiter.Acquire(t.Context(), r)
		return err
	}
	before := commandStats(t, admin)["evalsha"].calls
	for range 5 {
		if err := attempt(); !errors.Is(err, executor.ErrNotAcquired) {
			t.Fatalf("retry while queued = %v, want ErrNotAcquired", err)
		}
	}
	if n := commandStats(t, admin)["evalsha"].calls - before; n != 0 {
		t.Fatalf("%d scripts for 5 retries within a second of the attempt that queued, want none", n)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(w, 2*time.Second) {
		t.Fatal("waiter not woken")
	}
	if err := attempt(); err != nil {
		t.Fatalf("attempt after the wake = %v, want the lease", err)
	}
}
