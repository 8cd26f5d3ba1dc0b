package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executors/postgres"
)

// TestSweep_rowLocked: expired rows that another session keeps row-locked
// (a transaction holding FOR UPDATE on them) cost a sweep one visit each:
// the sweep goes through the table once and returns, where it used to read
// the same full batch again and again for as long as the rows stayed
// locked (31 871 statements in 5 s here), and the rows are removed by
// the next sweep once the session lets go.
func TestSweep_rowLocked(t *testing.T) {
	const rows = 700 // over one batch of the sweep (500)
	pool := newPool(t, server(t).Addr())
	o := postgres.Options{Table: "spin", Logger: testLogger(t)}
	crashedRows(t, pool, o, rows)
	tx, err := pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(t.Context())
	if _, err := tx.Exec(t.Context(), "SELECT 1 FROM spin_locks FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	e := newExecutor(t, pool, o)
	before := sweepStatements(t, pool)
	start := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := e.Sweep(ctx); err != nil {
		t.Errorf("Sweep with the rows locked = %v", err)
	}
	sent := sweepStatements(t, pool) - before
	t.Logf("a sweep over %d row-locked expired rows: %d statements in %v", rows, sent, time.Since(start))
	if sent > rows+rows/500+2 {
		t.Errorf("a sweep over %d row-locked expired rows sent %d statements, want at most one per row and one per batch", rows, sent)
	}
	if err := tx.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := e.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM spin_locks").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d expired rows left after a sweep once the session let go", left)
	}
}

// crashedRows migrates the tables of o and fills its locks table with n
// rows whose leases expired a minute ago, and nothing else.
func crashedRows(t *testing.T, pool *pgxpool.Pool, o postgres.Options, n int) {
	t.Helper()
	if err := postgres.Migrate(t.Context(), pool, o); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{"CREATE EXTENSION IF NOT EXISTS pg_stat_statements", "TRUNCATE " + o.Table + "_locks"} {
		if _, err := pool.Exec(t.Context(), sql); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(t.Context(), "INSERT INTO "+o.Table+`_locks (key, owner, token, expires_at)
		SELECT 'crashed:' || i, 'gone', i, now() - interval '1 minute' FROM generate_series(1, $1) i`, n); err != nil {
		t.Fatal(err)
	}
}

// sweepStatements returns how many stale and tidy statements of the table
// "spin" the server ran.
func sweepStatements(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	var n int64
	err := pool.QueryRow(t.Context(), `SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements
		WHERE query LIKE '%spin_stale(%' OR query LIKE '%spin_tidy(%'`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSweep_voidsLocked: expired void markers another session keeps
// locked (an operator's open transaction with FOR UPDATE on them) cost a
// sweep nothing: it skips them and removes the others. Before, its first
// page deleted the expired markers with one DELETE, which waited for the
// held ones until CleanupTimeout and failed the sweep: no key was swept
// for as long as the session kept them.
func TestSweep_voidsLocked(t *testing.T) {
	pool := newPool(t, server(t).Addr())
	o := postgres.Options{Table: "vlock", Logger: testLogger(t), CleanupTimeout: 2 * time.Second}
	crashedRows(t, pool, o, 1)
	run(t, pool, "INSERT INTO vlock_voids (owner, expires_at) VALUES ('held', now() - interval '1 minute'), ('old', now() - interval '1 minute')")
	tx, err := pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(t.Context())
	if _, err := tx.Exec(t.Context(), "SELECT 1 FROM vlock_voids WHERE owner = 'held' FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	e := newExecutor(t, pool, o)
	if err := e.Sweep(t.Context()); err != nil {
		t.Fatalf("Sweep beside a held void marker = %v", err)
	}
	var left string
	if err := pool.QueryRow(t.Context(), "SELECT concat_ws(',', (SELECT string_agg(owner, ',' ORDER BY owner) FROM vlock_voids), (SELECT count(*) FROM vlock_locks))").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != "held,0" {
		t.Fatalf("void markers, then key rows, left after the sweep: %q, want the held marker and no row", left)
	}
}
