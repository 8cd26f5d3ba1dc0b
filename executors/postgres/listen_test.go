package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/testwait"
)

// listeners counts the executors' LISTEN connections on the server.
func listeners(t *testing.T) int {
	t.Helper()
	var n int
	err := newPool(t, server(t).Addr()).QueryRow(t.Context(),
		"SELECT count(*) FROM pg_stat_activity WHERE application_name = 'lock4go listen'").Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestListen_idle: an executor that no longer waits stops listening
// (every listening backend costs the server work at each NOTIFY), and
// listens again at its next wait, when a release still wakes it.
func TestListen_idle(t *testing.T) {
	t.Cleanup(postgres.SetListenTiming(50*time.Millisecond, 200*time.Millisecond)) // restored after the executors close
	before := listeners(t)
	e, holder := direct(t), direct(t)
	key := uniq(t, "idle:")
	_, stop := e.WatchRelease(t.Context(), key)
	if !testwait.Until(5*time.Second, func() bool { return listeners(t) == before+1 }) {
		t.Fatalf("%d LISTEN connections, want %d", listeners(t), before+1)
	}
	stop()
	if !testwait.Until(5*time.Second, func() bool { return listeners(t) == before }) {
		t.Fatalf("%d LISTEN connections after the waiter left, want %d", listeners(t), before)
	}
	l, err := holder.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	r := req(key, time.Minute)
	r.Wait = true
	if _, err := e.Acquire(t.Context(), r); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("waiting Acquire = %v, want ErrNotAcquired", err)
	}
	released, stop := e.WatchRelease(t.Context(), key)
	defer stop()
	<-released // the first watch of a listener fires at once
	if err := l.Release(context.WithoutCancel(t.Context())); err != nil {
		t.Fatal(err)
	}
	select {
	case <-released:
	case <-time.After(5 * time.Second):
		t.Fatal("no wake after the listener came back")
	}
	r.Owner = owner()
	got, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatalf("the woken waiter's Acquire = %v", err)
	}
	_ = got.Release(t.Context())
}
