package memory_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

func TestLease_Lost_onExpiry(t *testing.T) {
	e := memory.New(memory.Options{})
	l, err := e.Acquire(t.Context(), executor.Request{Key: "k", Owner: "a", TTL: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	called := make(chan struct{})
	l.AfterLost(func() { close(called) })
	<-called
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Release after expiry = %v, want ErrLockNotHeld", err)
	}
}

func TestLease_AfterLost_stoppedOnRelease(t *testing.T) {
	e := memory.New(memory.Options{})
	l, err := e.Acquire(t.Context(), executor.Request{Key: "k", Owner: "a", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	stop := l.AfterLost(func() { t.Error("lost callback ran after a release") })
	if !stop() {
		t.Fatal("stop() = false before loss")
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestExecutor_Inspect(t *testing.T) {
	e := memory.New(memory.Options{Name: "mem2", Priority: 7})
	if e.Name() != "mem2" || e.Priority() != 7 {
		t.Fatalf("Name, Priority = %q, %d", e.Name(), e.Priority())
	}
	if _, err := e.Inspect(t.Context(), "k"); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Inspect free key = %v, want ErrLockNotHeld", err)
	}
	l, err := e.Acquire(t.Context(), executor.Request{Key: "k", Owner: "own", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(t.Context())
	h, err := e.Inspect(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	if h.Owner != "own" || h.Token != l.Token() || h.TTL <= 0 || h.TTL > time.Minute {
		t.Fatalf("Inspect = %+v", h)
	}
}

func TestExecutor_Acquire_invalidTTL(t *testing.T) {
	e := memory.New(memory.Options{})
	if _, err := e.Acquire(t.Context(), executor.Request{Key: "k", Owner: "a"}); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Fatalf("Acquire with zero TTL = %v, want ErrInvalidConfig", err)
	}
}

// One timer serves all the executor's leases: a lease with a short TTL
// granted after one with a long TTL, or renewed to a shorter TTL, still
// expires at its own deadline.
func TestLease_expiry_earlierDeadlines(t *testing.T) {
	e := memory.New(memory.Options{})
	ctx := t.Context()
	long, err := e.Acquire(ctx, executor.Request{Key: "long", Owner: "a", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	short, err := e.Acquire(ctx, executor.Request{Key: "short", Owner: "a", TTL: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	renewed, err := e.Acquire(ctx, executor.Request{Key: "renewed", Owner: "a", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := renewed.Renew(ctx, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for name, l := range map[string]executor.Lease{"short": short, "renewed": renewed} {
		lost := make(chan struct{})
		l.AfterLost(func() { close(lost) })
		select {
		case <-lost:
		case <-time.After(time.Minute):
			t.Fatalf("%s: not lost a minute after its 20ms deadline", name)
		}
	}
	if err := long.Release(ctx); err != nil {
		t.Fatalf("Release of the lease with an hour left = %v", err)
	}
}
