package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testserver"
)

// tryAdvisory takes the session advisory lock 42 through pool, as a
// pg_try_advisory_lock mutex does, and returns the answer and the server
// session (backend pid) that gave it.
func tryAdvisory(t *testing.T, pool *pgxpool.Pool) (got bool, pid int32) {
	t.Helper()
	err := pool.QueryRow(t.Context(), "SELECT pg_try_advisory_lock(42), pg_backend_pid()", pgx.QueryExecModeExec).Scan(&got, &pid)
	if err != nil {
		t.Fatal(err)
	}
	return got, pid
}

// TestAdvisoryLocks_pgBouncer shows why the executor uses no advisory
// lock: through PgBouncer in transaction mode a session advisory lock
// belongs to the server connection, not to the client that took it. A
// second client handed the same server connection is granted the lock
// while the first believes it holds it (advisory locks are re-entrant per
// session), and the lock outlives the client that took it. The executor's
// lock, a row with its owner value, excludes the second client and is
// gone once released, through the same PgBouncer.
func TestAdvisoryLocks_pgBouncer(t *testing.T) {
	b, pg := pgBouncer(t), server(t)
	poolA, poolB := newPool(t, b.Addr()), newPool(t, b.Addr())
	gotA, pidA := tryAdvisory(t, poolA)
	if !gotA {
		t.Fatal("client A did not get the free advisory lock")
	}
	gotB, pidB := tryAdvisory(t, poolB)
	switch {
	case gotB && pidA == pidB:
		t.Logf("client B got the advisory lock client A holds: both were served by server session %d", pidA)
	case gotB:
		t.Fatalf("client B got the advisory lock client A holds on another session (%d, %d)", pidA, pidB)
	default:
		t.Fatalf("client B was refused the advisory lock (sessions %d, %d): PgBouncer did not hand it A's session, as it does in transaction mode with an idle pool", pidA, pidB)
	}
	// Client A goes away: the lock stays with the server connection.
	poolA.Close()
	var held bool
	if err := newPool(t, pg.Addr()).QueryRow(t.Context(), "SELECT pg_try_advisory_lock(42)", pgx.QueryExecModeExec).Scan(&held); err != nil {
		t.Fatal(err)
	}
	if held {
		t.Fatal("the advisory lock was free for a direct client after its PgBouncer clients left")
	}
	t.Logf("the advisory lock outlived the client that took it: still held by PgBouncer's server connection %d", pidA)

	// The executor's lock through the same PgBouncer.
	listen := testserver.PostgresDSN(pg.Addr())
	a := newExecutor(t, newPool(t, b.Addr()), optionsListen(listen))
	c := newExecutor(t, newPool(t, b.Addr()), optionsListen(listen))
	key := uniq(t, "advisory:")
	l, err := a.Acquire(t.Context(), req(key, 30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if l2, err := c.Acquire(t.Context(), req(key, 30*time.Second)); !errors.Is(err, executor.ErrNotAcquired) {
		if err == nil {
			_ = l2.Release(context.WithoutCancel(t.Context()))
		}
		t.Fatalf("a second client's Acquire = %v, want ErrNotAcquired", err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	l2, err := c.Acquire(t.Context(), req(key, 30*time.Second))
	if err != nil {
		t.Fatalf("after the release, a second client's Acquire = %v", err)
	}
	if err := l2.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
}
