package postgres_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testwait"
)

// shared returns a read-lock request for key with a fresh owner.
func shared(key string, ttl time.Duration) executor.Request {
	r := req(key, ttl)
	r.Shared = true
	return r
}

// TestReadLock_operatorCleanup: a read-locked key's row does not look
// expired, so an operator's clean-up of expired rows leaves it; a writer
// does not pass the live read lock even when the row was deleted outright,
// waiting or not; and the reader's release still frees the key and leaves
// no row.
func TestReadLock_operatorCleanup(t *testing.T) {
	reader, writer := direct(t), direct(t)
	pool := newPool(t, server(t).Addr())
	key := uniq(t, "cleanup:")
	rl, err := reader.Acquire(t.Context(), shared(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	// The operator's clean-up query, on this test's key only.
	tag, err := pool.Exec(t.Context(), "DELETE FROM lock4go_locks WHERE expires_at < now() AND key = $1", key)
	if err != nil {
		t.Fatal(err)
	}
	if tag.RowsAffected() != 0 {
		t.Error("DELETE ... WHERE expires_at < now() removed the row of a read-locked key")
	}
	if _, err := pool.Exec(t.Context(), "DELETE FROM lock4go_locks WHERE key = $1", key); err != nil {
		t.Fatal(err)
	}
	for _, wait := range []bool{false, true} {
		w := req(key, time.Minute)
		w.Wait = wait
		if l, err := writer.Acquire(t.Context(), w); err == nil {
			_ = l.Release(t.Context())
			t.Fatalf("a writer (wait %v) took a key read-locked by another owner, whose row was deleted", wait)
		} else if !errors.Is(err, executor.ErrNotAcquired) {
			t.Fatalf("writer's Acquire (wait %v) = %v, want ErrNotAcquired", wait, err)
		}
	}
	if err := rl.Release(t.Context()); err != nil {
		t.Errorf("the reader's Release = %v", err)
	}
	// The release handed the key to the waiting writer's executor.
	w := req(key, time.Minute)
	w.Wait = true
	if l, err := writer.Acquire(t.Context(), w); err != nil {
		t.Errorf("the writer's Acquire after the release = %v", err)
	} else if err := l.Release(t.Context()); err != nil {
		t.Error(err)
	}
	if n := rows(t, key); n != 0 {
		t.Errorf("%d rows left after every release", n)
	}
}

// TestSweep_orphans: what a crashed reader and a waiter leave behind a key
// whose row an operator deleted (shares and queue entries without their
// key's row) is found by the sweep: expired shares are removed, and a live
// waiter is handed the key.
func TestSweep_orphans(t *testing.T) {
	dead, live := direct(t), direct(t)
	pool := newPool(t, server(t).Addr())
	key, orphan := uniq(t, "orphan-queue:"), uniq(t, "orphan:")
	const lease = 300 * time.Millisecond
	for _, k := range []string{key, orphan} {
		if _, err := dead.Acquire(t.Context(), shared(k, lease)); err != nil {
			t.Fatal(err)
		}
	}
	w := req(key, time.Minute)
	w.Wait = true
	if _, err := live.Acquire(t.Context(), w); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("waiting Acquire = %v, want ErrNotAcquired", err)
	}
	released, stop := live.WatchRelease(t.Context(), key)
	defer stop()
	<-released // the first watch fires at once
	if _, err := pool.Exec(t.Context(), "DELETE FROM lock4go_locks WHERE key = $1 OR key = $2", key, orphan); err != nil {
		t.Fatal(err)
	}
	if !testwait.Until(10*time.Second, func() bool { return !held(t, live, key) && !held(t, live, orphan) }) {
		t.Fatal("the dead reader's read locks did not expire")
	}
	if err := dead.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := rows(t, orphan); n != 0 {
		t.Errorf("%d rows of an orphaned expired read lock left after a sweep", n)
	}
	select {
	case <-released:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was not woken when the sweep handed it the orphaned key")
	}
	w.Owner = owner()
	l, err := live.Acquire(t.Context(), w)
	if err != nil {
		t.Fatalf("the woken waiter's Acquire = %v", err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := rows(t, key); n != 0 {
		t.Fatalf("%d rows left after the release", n)
	}
}
