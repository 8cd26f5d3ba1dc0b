package zookeeper

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
)

// TestExecutor_Close_leaseHeld closes the executor while a lease is held:
// Lost must be closed when Close returns, the node deleted (the conn, the
// caller's, stays open), and Renew and Release report ErrLockNotHeld with
// the cause.
func TestExecutor_Close_leaseHeld(t *testing.T) {
	addr := server(t)
	e := newExecutor(t, dial(t, testSession, addr), Options{})
	other := newExecutor(t, dial(t, testSession, addr), Options{})
	key := "close:" + t.Name()
	l, err := e.Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatal(err)
	}
	notified := lostAt(l)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if !executortest.IsLost(l) {
		t.Fatal("the lease does not report itself lost after Close")
	}
	select {
	case <-notified:
	case <-time.After(5 * time.Second):
		t.Fatal("AfterLost function not called after Close")
	}
	if err := l.Renew(t.Context(), time.Second); !errors.Is(err, executor.ErrLockNotHeld) || !errors.Is(err, executor.ErrClosed) {
		t.Fatalf("Renew after Close = %v, want ErrLockNotHeld and ErrClosed", err)
	}
	if h, err := other.Inspect(t.Context(), key); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Inspect after Close = %+v, %v; want the node deleted by Close", h, err)
	}
	if _, err := e.Acquire(t.Context(), req("close-other:"+t.Name(), false)); !errors.Is(err, executor.ErrClosed) || errors.Is(err, executor.ErrBackend) {
		t.Fatalf("Acquire after Close = %v, want ErrClosed alone", err)
	}
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) || !errors.Is(err, errUnwatched) {
		t.Fatalf("Release after Close = %v, want ErrLockNotHeld", err)
	}
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("second Release = %v, want ErrLockNotHeld", err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
}
