package redis_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
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
	if _, err := e.Inspect(t.Context(), key); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Inspect after Release = %v, want ErrLockNotHeld", err)
	}
}
