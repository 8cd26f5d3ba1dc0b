package mysql_test

import (
	"database/sql"
	"log/slog"
	"strconv"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testkey"
	"github.com/lock4go/lock4go/internal/testlog"
	"github.com/lock4go/lock4go/internal/testserver"
)

// server returns the package's MariaDB server, or skips.
func server(t testing.TB) *testserver.Server {
	t.Helper()
	testserver.Check(t, mdbErr)
	return mdbSrv
}

// dsn returns the DSN of user (no password) on database db at addr, with
// none of the driver's optional settings: the executor needs none
// (parseTime in particular).
func dsn(addr, user, db string) string {
	return user + "@tcp(" + addr + ")/" + db + "?timeout=5s"
}

// openDB returns a *sql.DB for d, closed at the end of the test.
func openDB(t testing.TB, d string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", d)
	if err != nil {
		t.Fatalf("sql.Open = %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// rootDB returns a *sql.DB of root on the test database.
func rootDB(t testing.TB) *sql.DB { return openDB(t, dsn(server(t).Addr(), "root", testDB)) }

// run runs each statement on db, failing the test on the first error.
func run(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.ExecContext(t.Context(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
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

// newExecutor returns an executor over db closed at the end of the test
// (before db).
func newExecutor(t testing.TB, db *sql.DB, o mysql.Options) *mysql.Executor {
	t.Helper()
	if o.Logger == nil {
		o.Logger = testLogger(t)
	}
	e, err := mysql.New(db, o)
	return exectest.Closing(t, e, err)
}

// fmtInt formats n in decimal.
func fmtInt(n int64) string { return strconv.FormatInt(n, 10) }
