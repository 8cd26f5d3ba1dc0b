package mysql_test

import (
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testwait"
	"github.com/lock4go/lock4go/internal/timerprobe"
)

// TestClose_serverPaused: Close with the server stopped (SIGSTOP), locks
// held, a waiter queued (its wake connection up) and voids of lost
// replies pending returns within about one CleanupTimeout, whatever the
// number of statements that cannot run. The keys are free once their
// leases end. (Not parallel: it pauses the package's server.)
func TestClose_serverPaused(t *testing.T) {
	const (
		cleanup = 2 * time.Second
		lease   = 3 * time.Second
	)
	s := server(t)
	e := newExecutor(t, rootDB(t), mysql.Options{CleanupTimeout: cleanup})
	other := newExecutor(t, rootDB(t), mysql.Options{})
	keys := holdAndQueue(t, e, other, lease)
	stuck := make([]string, 4)
	for i := range stuck {
		stuck[i] = uniq(t, "close-void:")
	}
	tx := lockRows(t, rootDB(t), stuck)
	exectest.LostReplies(t, e, stuck, lease)
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Resume() })
	probe := timerprobe.Start()
	start := time.Now()
	err := e.Close()
	took := time.Since(start)
	late := timerprobe.Max(probe.Stop(), start.UnixNano(), time.Now().UnixNano())
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	_ = tx.Rollback()
	t.Logf("Close took %v (timers up to %v late): %v", took, late, err)
	if bound := cleanup + 500*time.Millisecond + late; took > bound {
		t.Fatalf("Close took %v with CleanupTimeout %v, want at most %v", took, cleanup, bound)
	}
	after := newExecutor(t, rootDB(t), mysql.Options{})
	keys = append(keys, stuck...)
	testwait.For(t, lease+10*time.Second, "every key free after its lease", func() bool { return exectest.AllFree(t, after, keys) })
}

// holdAndQueue takes two keys with a lease of ttl on e, and queues e for a
// key other holds; it returns the keys e holds.
func holdAndQueue(t *testing.T, e, other *mysql.Executor, ttl time.Duration) []string {
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
func lockRows(t *testing.T, db *sql.DB, keys []string) *sql.Tx {
	t.Helper()
	tx, err := db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback() })
	for _, k := range keys {
		if _, err := tx.ExecContext(t.Context(), "INSERT INTO lock4go_locks (k, owner, token, expires) VALUES (?, NULL, 0, 0)", k); err != nil {
			t.Fatal(err)
		}
	}
	return tx
}
