package zookeeper

import (
	"errors"
	"testing"

	"github.com/lock4go/lock4go/executor"
)

// A semaphore's containers outlive its last lease until ZooKeeper reaps
// them: a lock on the key must not take them for a semaphore in use, while
// a held permit keeps locks out.
func TestSemaphore_kindOfKey(t *testing.T) {
	addr := server(t)
	e := newExecutor(t, dial(t, testSession, addr), Options{})
	key := "sem-kind:" + t.Name()
	p := req(key, false)
	p.Permits = 2
	l, err := e.Acquire(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Acquire(t.Context(), req(key, false)); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Fatalf("lock on a semaphore with a lease out = %v, want ErrInvalidConfig", err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	m, err := e.Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatalf("lock after the semaphore's last lease: %v", err)
	}
	p.Owner = newGUID()
	if _, err := e.Acquire(t.Context(), p); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Fatalf("permit on a held lock = %v, want ErrInvalidConfig", err)
	}
	if err := m.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
}
