package mysql_test

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/internal/testwait"
)

// template returns a Template over e alone with a retry interval of
// retry: a hand-off much faster than retry is a wake.
func template(t testing.TB, e *mysql.Executor, retry time.Duration) *lock4go.Template {
	t.Helper()
	tpl, err := lock4go.New(lock4go.Config{RetryInterval: retry, AcquireTimeout: 20 * time.Second}, e)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// handoff measures how long the waiter takes key after the holder
// releases it, the waiter having queued behind the holder a while before.
func handoff(t *testing.T, holder, waiter *lock4go.Template, key string) time.Duration {
	t.Helper()
	h, err := holder.Lock(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan time.Time, 1)
	go func() {
		l, err := waiter.Lock(t.Context(), key)
		got <- time.Now()
		if err != nil {
			t.Errorf("the waiter's Lock = %v", err)
			return
		}
		_ = l.Release(t.Context())
	}()
	testwait.For(t, 10*time.Second, "the waiter queued", func() bool {
		i, err := holder.Inspect(t.Context(), key)
		return err == nil && i.Waiters == 1
	})
	// The holder keeps the key a while after the waiter queued, as a real
	// one does: past the waiter's first polls.
	time.Sleep(100*time.Millisecond + rand.N(100*time.Millisecond))
	released := time.Now()
	if err := h.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	return (<-got).Sub(released)
}

// TestWake_handoff: a release wakes the waiter of another process through
// its wake connection: with a retry interval of 2s the hand-off takes
// milliseconds, not the interval.
func TestWake_handoff(t *testing.T) {
	t.Parallel()
	holder := template(t, newExecutor(t, rootDB(t), mysql.Options{}), 2*time.Second)
	waiter := template(t, newExecutor(t, rootDB(t), mysql.Options{}), 2*time.Second)
	key := uniq(t, "handoff:")
	var d []time.Duration
	for range 10 {
		d = append(d, handoff(t, holder, waiter, key))
	}
	slices.Sort(d)
	t.Logf("hand-off over 10: min %v, p50 %v, max %v", d[0], d[5], d[9])
	if d[5] > 500*time.Millisecond {
		t.Fatalf("hand-off p50 %v, want far below the 2s retry interval", d[5])
	}
}

// bellUp reports whether e's wake connection is up: a connection holds
// its named lock.
func bellUp(t *testing.T, e *mysql.Executor) bool {
	t.Helper()
	var id sql.NullInt64
	if err := rootDB(t).QueryRowContext(t.Context(), "SELECT IS_USED_LOCK(?)", mysql.WakeLock(e)).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id.Valid
}

// TestWake_idleAndKilled: an executor that no longer waits gives its wake
// connection back (it holds a connection of the pool), and takes one again
// at its next wait; a wake connection killed by an operator (KILL) comes
// back, and a release wakes the waiter through the new one.
func TestWake_idleAndKilled(t *testing.T) {
	t.Cleanup(mysql.SetBellTiming(200*time.Millisecond, 300*time.Millisecond)) // restored after the executors close
	e, holder := newExecutor(t, rootDB(t), mysql.Options{}), newExecutor(t, rootDB(t), mysql.Options{})
	key := uniq(t, "idle:")
	_, stop := e.WatchRelease(t.Context(), key)
	testwait.For(t, 5*time.Second, "a wake connection", func() bool { return bellUp(t, e) })
	stop()
	testwait.For(t, 5*time.Second, "the wake connection gone", func() bool { return !bellUp(t, e) })
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
	<-released // the first watch of a bell fires at once
	killBells(t, rootDB(t))
	testwait.For(t, 5*time.Second, "the wake connection back", func() bool { return bellUp(t, e) })
	drain(released) // the reconnect's gap woke it
	if err := l.Release(context.WithoutCancel(t.Context())); err != nil {
		t.Fatal(err)
	}
	select {
	case <-released:
	case <-time.After(5 * time.Second):
		t.Fatal("no wake through the new wake connection")
	}
	r.Owner = owner()
	got, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatalf("the woken waiter's Acquire = %v", err)
	}
	_ = got.Release(t.Context())
}

// killBells kills the connections running a wait call, as an operator
// with KILL would.
func killBells(t *testing.T, db *sql.DB) {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE 'CALL lock4go_wait(%'")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	_ = rows.Close()
	for _, id := range ids {
		if _, err := db.ExecContext(t.Context(), "KILL CONNECTION ?", id); err != nil {
			t.Fatal(err)
		}
	}
}

// drain empties ch without waiting.
func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}
