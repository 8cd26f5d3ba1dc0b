package redis_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testwait"
)

func TestExecutor_Inspect(t *testing.T) {
	s := server(t)
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	watcher := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	key := uniq(t, "inspect:")
	if _, err := e.Inspect(t.Context(), key); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Inspect of a free key = %v, want ErrLockNotHeld", err)
	}
	r := req(key, 10*time.Second)
	l, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	wr := req(key, 10*time.Second)
	wr.Wait = true
	if _, err := watcher.Acquire(t.Context(), wr); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("a waiting attempt on a held key = %v, want ErrNotAcquired", err)
	}
	_, stop := watcher.WatchRelease(t.Context(), key)
	defer stop()
	h, err := e.Inspect(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	if h.Owner != r.Owner || h.Token != l.Token() || h.TTL <= 9*time.Second || h.TTL > 10*time.Second || h.Waiters != 1 {
		t.Fatalf("Inspect = %+v, want owner %s, token %d, TTL ~10s, 1 waiter", h, r.Owner, l.Token())
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The release handed the key to the queued executor: a claim.
	if h, err := e.Inspect(t.Context(), key); err != nil || !strings.HasPrefix(h.Owner, "lock4go:claim:") || h.Waiters != 0 {
		t.Fatalf("Inspect after a release with a waiter queued = %+v, %v; want a claim and no waiter", h, err)
	}
	stop() // the waiter gives up: the claim goes, and nobody is left
	if !testwait.Until(5*time.Second, func() bool {
		_, err := e.Inspect(t.Context(), key)
		return errors.Is(err, executor.ErrLockNotHeld)
	}) {
		t.Fatal("the claim of a waiter that gave up was not freed")
	}
}
