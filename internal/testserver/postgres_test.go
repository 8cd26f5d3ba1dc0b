package testserver

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// connect opens a connection to the PostgreSQL server or PgBouncer at addr.
func connect(t *testing.T, addr string) *pgconn.PgConn {
	t.Helper()
	ctx, cancel := contextWithTimeout(t, 10*time.Second)
	defer cancel()
	c, err := pgconn.Connect(ctx, PostgresDSN(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// query runs sql on c within d and returns its first value ("" for none).
func query(t *testing.T, c *pgconn.PgConn, d time.Duration, sql string) (string, error) {
	t.Helper()
	ctx, cancel := contextWithTimeout(t, d)
	defer cancel()
	res, err := c.Exec(ctx, sql).ReadAll()
	if err != nil {
		return "", err
	}
	if len(res) == 0 || len(res[len(res)-1].Rows) == 0 {
		return "", nil
	}
	return string(res[len(res)-1].Rows[0][0]), nil
}

// TestPostgres_faults: a pause freezes the backends of open connections
// too (they run in process groups of their own), and a killed server
// keeps its committed data when restarted.
func TestPostgres_faults(t *testing.T) {
	t.Parallel()
	s, err := StartPostgres()
	Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	c := connect(t, s.Addr())
	if _, err := query(t, c, 5*time.Second, "CREATE TABLE t (v int); INSERT INTO t VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	if _, err := query(t, c, 300*time.Millisecond, "SELECT 1"); err == nil {
		t.Fatal("an open connection's backend answered while the server was paused")
	}
	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if v, err := query(t, connect(t, s.Addr()), 5*time.Second, "SELECT v FROM t"); err != nil || v != "42" {
		t.Fatalf("after a kill and restart: %q, %v; want the committed 42", v, err)
	}
}

// TestPgBouncer_transactionPooling: PgBouncer serves queries, and in
// transaction mode a session's state does not follow its client (two
// clients share one server connection's session).
func TestPgBouncer_transactionPooling(t *testing.T) {
	t.Parallel()
	pg, err := StartPostgres()
	Check(t, err)
	t.Cleanup(func() { _ = pg.Stop() })
	b, err := StartPgBouncer(pg)
	Check(t, err)
	t.Cleanup(func() { _ = b.Stop() })
	c := connect(t, b.Addr())
	pid1, err := query(t, c, 5*time.Second, "SELECT pg_backend_pid()")
	if err != nil {
		t.Fatal(err)
	}
	other := connect(t, b.Addr())
	pid2, err := query(t, other, 5*time.Second, "SELECT pg_backend_pid()")
	if err != nil {
		t.Fatal(err)
	}
	if pid1 != pid2 {
		t.Fatalf("two clients one after the other got server sessions %s and %s, want one shared session (transaction pooling)", pid1, pid2)
	}
}

// TestPostgres_faketime: a server started with Faketime's environment
// reads a wall clock running at the rate asked for, in every backend.
func TestPostgres_faketime(t *testing.T) {
	t.Parallel()
	env, err := Faketime("+0 x1.5")
	Check(t, err)
	s, err := StartPostgresEnv(env)
	Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	c := connect(t, s.Addr())
	read := func() time.Time {
		v, err := query(t, c, 5*time.Second, "SELECT extract(epoch FROM clock_timestamp())::text")
		if err != nil {
			t.Fatal(err)
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		return time.Unix(0, int64(f*1e9))
	}
	start, db0 := time.Now(), read()
	time.Sleep(time.Second) // the span over which the two clocks are compared
	rate := float64(read().Sub(db0)) / float64(time.Since(start))
	t.Logf("the database's clock ran at %.3f times the real one", rate)
	if rate < 1.35 || rate > 1.6 {
		t.Fatalf("the database's clock ran at %.2f times the real one, want 1.5", rate)
	}
}
