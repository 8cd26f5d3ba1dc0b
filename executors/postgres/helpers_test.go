package postgres_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testkey"
	"github.com/lock4go/lock4go/internal/testlog"
	"github.com/lock4go/lock4go/internal/testserver"
)

// server returns the package's PostgreSQL server, or skips.
func server(t testing.TB) *testserver.Server {
	t.Helper()
	testserver.Check(t, pgErr)
	return pgSrv
}

// pgBouncer returns the package's PgBouncer, or skips.
func pgBouncer(t testing.TB) *testserver.Server {
	t.Helper()
	testserver.Check(t, bouncerErr)
	return bouncer
}

// newPool returns a pool of connections to addr, closed at the end of the
// test.
func newPool(t testing.TB, addr string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(t.Context(), testserver.PostgresDSN(addr))
	if err != nil {
		t.Fatalf("pgxpool.New = %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// newExecutor returns an executor over pool closed at the end of the test
// (before the pool).
func newExecutor(t testing.TB, pool *pgxpool.Pool, o postgres.Options) *postgres.Executor {
	t.Helper()
	if o.Logger == nil {
		o.Logger = testLogger(t)
	}
	e, err := postgres.New(pool, o)
	return exectest.Closing(t, e, err)
}

// direct returns an executor with a pool of its own straight to the
// server.
func direct(t testing.TB) *postgres.Executor {
	return newExecutor(t, newPool(t, server(t).Addr()), postgres.Options{})
}

// testLogger logs to t at debug level until t ends (testlog.Logger).
func testLogger(t testing.TB) *slog.Logger { return testlog.Logger(t) }

// uniq returns a key unique to this test run.
func uniq(t testing.TB, prefix string) string { return testkey.Unique(t, prefix) }

// owner returns a fresh owner value.
func owner() string { return testkey.Owner() }

// req returns a request for key with a fresh owner.
func req(key string, ttl time.Duration) executor.Request {
	return executor.Request{Key: key, Owner: owner(), TTL: ttl}
}

// optionsListen returns Options whose LISTEN connection goes to dsn.
func optionsListen(dsn string) postgres.Options { return postgres.Options{ListenDSN: dsn} }

// rows counts what the default tables hold for key: its row, shares and
// queue entries.
func rows(t testing.TB, key string) int {
	t.Helper()
	var n int
	err := newPool(t, server(t).Addr()).QueryRow(t.Context(), `SELECT
		(SELECT count(*) FROM lock4go_locks WHERE key = $1) +
		(SELECT count(*) FROM lock4go_shares WHERE key = $1) +
		(SELECT count(*) FROM lock4go_waiters WHERE key = $1)`, key).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// newPoolWith returns a pool of connections to addr configured by set,
// closed at the end of the test.
func newPoolWith(t testing.TB, addr string, set func(*pgxpool.Config)) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(testserver.PostgresDSN(addr))
	if err != nil {
		t.Fatal(err)
	}
	set(cfg)
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatalf("pgxpool.NewWithConfig = %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}
