package postgres_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/postgres"
)

// TestTimeouts_role: the executor under a role whose sessions have small
// timeouts: statement_timeout 100 ms and lock_timeout 50 ms (an attempt
// that waits for a row another session keeps locked is cancelled, having
// written nothing: no void, and the Template tries again), and
// idle_session_timeout 500 ms (the server closes idle pool connections and
// the LISTEN connection; the pool replaces them, the listener reconnects
// and wakes its waiters). A waiter gets the key once the other session lets
// go, and nothing is left behind.
func TestTimeouts_role(t *testing.T) {
	admin := newPool(t, server(t).Addr())
	o := postgres.Options{Table: "tmo", Logger: testLogger(t)}
	tpl, err := lock4go.New(lock4go.Config{AcquireTimeout: 10 * time.Second, Logger: testLogger(t)}, newExecutor(t, timeoutRole(t, admin, o), o))
	if err != nil {
		t.Fatal(err)
	}
	holder, err := lock4go.New(lock4go.Config{Logger: testLogger(t)}, newExecutor(t, admin, o))
	if err != nil {
		t.Fatal(err)
	}
	key := uniq(t, "tmo:")
	h, err := holder.Lock(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	// Another session keeps the key's row locked for a while.
	tx := lockRow(t, admin, "tmo_locks", key)
	timeoutsBefore := lockTimeouts(t)
	got := make(chan error, 1)
	start := time.Now()
	go func() {
		l, err := tpl.Lock(t.Context(), key)
		if err == nil {
			err = l.Release(context.WithoutCancel(t.Context()))
		}
		got <- err
	}()
	time.Sleep(1500 * time.Millisecond) // the row stays locked; the waiter's sessions idle out
	if err := tx.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := h.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("the waiter's Lock = %v", err)
	}
	cancelled := lockTimeouts(t) - timeoutsBefore
	t.Logf("the waiter got the key %v after it asked, %d of its attempts cancelled by lock_timeout", time.Since(start), cancelled)
	if cancelled == 0 {
		t.Error("no attempt was cancelled by lock_timeout: the test did not test it")
	}
	leftovers(t, admin, key)
}

// timeoutRole migrates o's tables and returns a pool of connections as a
// role whose sessions have small timeouts, closed at the end of the test.
func timeoutRole(t *testing.T, admin *pgxpool.Pool, o postgres.Options) *pgxpool.Pool {
	t.Helper()
	if err := postgres.Migrate(t.Context(), admin, o); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		"DO $$ BEGIN CREATE ROLE lock4go_tmo LOGIN SUPERUSER; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
		"ALTER ROLE lock4go_tmo SET statement_timeout = '100ms'",
		"ALTER ROLE lock4go_tmo SET lock_timeout = '50ms'",
		"ALTER ROLE lock4go_tmo SET idle_in_transaction_session_timeout = '100ms'",
		"ALTER ROLE lock4go_tmo SET idle_session_timeout = '500ms'",
	} {
		if _, err := admin.Exec(t.Context(), sql); err != nil {
			t.Fatal(err)
		}
	}
	pool, err := pgxpool.New(t.Context(), "postgres://lock4go_tmo@"+server(t).Addr()+"/postgres?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// lockRow begins a transaction on pool that locks key's row of table
// FOR UPDATE.
func lockRow(t *testing.T, pool *pgxpool.Pool, table, key string) pgx.Tx {
	t.Helper()
	tx, err := pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	if _, err := tx.Exec(t.Context(), "SELECT 1 FROM "+table+" WHERE key = $1 FOR UPDATE", key); err != nil {
		t.Fatal(err)
	}
	return tx
}

// leftovers fails t if the tables "tmo" hold void markers, or rows of key.
func leftovers(t *testing.T, admin *pgxpool.Pool, key string) {
	t.Helper()
	var voids, left int
	err := admin.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM tmo_voids),
		(SELECT count(*) FROM tmo_locks WHERE key = $1) + (SELECT count(*) FROM tmo_waiters WHERE key = $1)`, key).Scan(&voids, &left)
	if err != nil {
		t.Fatal(err)
	}
	if voids != 0 || left != 0 {
		t.Errorf("%d voids and %d rows of the key left", voids, left)
	}
}

// lockTimeouts counts the statements the server's log says lock_timeout
// cancelled.
func lockTimeouts(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(server(t).LogPath())
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "canceling statement due to lock timeout")
}
