package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testlog"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
	"github.com/lock4go/lock4go/internal/timerprobe"
)

// TestClose_serverPaused: Close with the server stopped (SIGSTOP), locks
// held, a waiter queued and a round of voids in flight returns within
// about one CleanupTimeout for the whole round, not one per void, and
// says that it gave the voids up. What their statements took once the
// server runs again, and the held locks it could not release, stay until
// their leases end: then the keys are free.
//
// The round: a first void waits for a row lock another session holds
// while the acquisitions of more keys, whose rows a second session
// holds, lose their replies too; once the first session lets go, the
// first void succeeds, so the next round sends every pending void (not
// one as a probe), and each of them waits for the second session's row
// locks when the server is paused.
func TestClose_serverPaused(t *testing.T) {
	const (
		cleanup = 2 * time.Second
		voids   = 8
		lease   = 3 * time.Second
	)
	s := server(t)
	admin := newPool(t, s.Addr())
	pool := newPoolWith(t, s.Addr(), func(c *pgxpool.Config) { c.MaxConns = 2*voids + 4 })
	log, dropped := testlog.Signal(t, "executor closed before voiding an attempt")
	e := newExecutor(t, pool, postgres.Options{CleanupTimeout: cleanup, Logger: log})
	other := direct(t)
	warm(t, pool, 2*voids+4) // the statements below are sent on open connections
	keys := holdAndQueue(t, e, other, lease)

	first, stuck := []string{uniq(t, "close-first:")}, make([]string, voids)
	for i := range stuck {
		stuck[i] = uniq(t, "close-void:")
	}
	a, b := lockRows(t, admin, first), lockRows(t, admin, stuck)
	exectest.LostReplies(t, e, first, lease)
	exectest.LostReplies(t, e, stuck, lease)
	if err := a.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !testwait.Until(10*time.Second, func() bool { return voidsWaiting(t, admin) > 0 }) {
		t.Fatal("no void waits for the second session's row locks")
	}
	took, late := closePaused(t, s, e)
	_ = b.Rollback(t.Context())
	if bound := cleanup + 500*time.Millisecond + late; took > bound {
		t.Fatalf("Close took %v with CleanupTimeout %v, want at most %v", took, cleanup, bound)
	}
	select {
	case <-dropped:
	default:
		t.Fatal("Close gave the pending voids up without a warning")
	}
	keys = append(append(keys, first...), stuck...)
	after := direct(t)
	if !testwait.Until(lease+10*time.Second, func() bool { return exectest.AllFree(t, after, keys) }) {
		t.Fatalf("keys still held %v after their leases", lease+10*time.Second)
	}
}

// closePaused closes e while s is paused, then resumes s, and returns how
// long Close took and how late this process's timers fired meanwhile.
func closePaused(t *testing.T, s *testserver.Server, e *postgres.Executor) (took, late time.Duration) {
	t.Helper()
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Resume() })
	probe := timerprobe.Start()
	start := time.Now()
	err := e.Close()
	took = time.Since(start)
	late = timerprobe.Max(probe.Stop(), start.UnixNano(), time.Now().UnixNano())
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %v (timers up to %v late): %v", took, late, err)
	return took, late
}

// holdAndQueue takes two keys with a lease of ttl on e, and queues e for a
// key other holds; it returns the keys e holds.
func holdAndQueue(t *testing.T, e, other *postgres.Executor, ttl time.Duration) []string {
	t.Helper()
	var keys []string
	for range 2 {
		k := uniq(t, "close-held:")
		if _, err := e.Acquire(t.Context(), req(k, ttl)); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	queued := uniq(t, "close-queued:")
	if _, err := other.Acquire(t.Context(), req(queued, ttl)); err != nil {
		t.Fatal(err)
	}
	w := req(queued, ttl)
	w.Wait = true
	if _, err := e.Acquire(t.Context(), w); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("waiting Acquire = %v, want ErrNotAcquired", err)
	}
	_, stop := e.WatchRelease(t.Context(), queued)
	t.Cleanup(stop)
	return keys
}

// lockRows inserts the rows of keys in a transaction it leaves open, so
// that statements on them wait for its end.
func lockRows(t *testing.T, pool *pgxpool.Pool, keys []string) pgx.Tx {
	t.Helper()
	tx, err := pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(context.WithoutCancel(t.Context())) })
	if _, err := tx.Exec(t.Context(), "INSERT INTO lock4go_locks (key, expires_at) SELECT unnest($1::text[]), '-infinity'", keys); err != nil {
		t.Fatal(err)
	}
	return tx
}

// voidsWaiting counts the void statements that wait for a lock.
func voidsWaiting(t *testing.T, pool *pgxpool.Pool) int {
	var n int
	err := pool.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity
		WHERE query LIKE '%lock4go_void(%' AND wait_event_type = 'Lock'`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// warm opens n connections of pool.
func warm(t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	var conns []*pgxpool.Conn
	for range n {
		c, err := pool.Acquire(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Release()
	}
}
