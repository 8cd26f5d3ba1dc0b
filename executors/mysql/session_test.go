package mysql_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/mysql"
)

// TestSession_settings: every statement stands alone, whatever the
// sessions of the pool are set to (the DSN's settings, sent on every new
// connection): non-strict and odd sql_modes, autocommit off, each
// isolation level, far time zones, other character sets and collations,
// a frozen clock (SET timestamp), the driver's client-side interpolation
// and found-rows. Under each, keys that a collation or a non-strict mode
// would confuse ('a', 'a ', 'A', 'ä', and a key one byte over the limit
// that a truncation would make the limit's) are different locks, a lease
// is as long as asked by the server's real clock, and tokens grow.
func TestSession_settings(t *testing.T) {
	t.Parallel()
	for _, params := range []string{
		"sql_mode=%27%27",
		"sql_mode=%27ANSI_QUOTES,NO_BACKSLASH_ESCAPES,PIPES_AS_CONCAT,PAD_CHAR_TO_FULL_LENGTH,IGNORE_SPACE,NO_ZERO_DATE%27",
		"autocommit=0",
		"tx_isolation=%27SERIALIZABLE%27",
		"tx_isolation=%27READ-UNCOMMITTED%27",
		"time_zone=%27%2B13:00%27",
		"time_zone=%27-11:00%27",
		"charset=latin1",
		"collation=utf8mb4_general_ci",
		"timestamp=1000000000",
		"interpolateParams=true&clientFoundRows=true&parseTime=true&loc=Asia%2FTokyo",
	} {
		t.Run(params, func(t *testing.T) {
			t.Parallel()
			e := newExecutor(t, openDB(t, dsn(server(t).Addr(), "root", testDB)+"&"+params), mysql.Options{})
			distinctKeys(t, e, newExecutor(t, rootDB(t), mysql.Options{}))
		})
	}
}

// distinctKeys checks that keys a collation, a trailing space or a
// truncation would confuse are different locks on e, with leases as long
// as asked and growing tokens, as judge, an executor whose sessions have
// the server's defaults, sees them.
func distinctKeys(t *testing.T, e, judge *mysql.Executor) {
	t.Helper()
	base := uniq(t, "session:")
	long := base + strings.Repeat("x", 1024-len(base))
	keys := []string{base + "a", base + "a ", base + "A", base + "ä", long}
	var last int64
	for _, k := range keys {
		l, err := e.Acquire(t.Context(), req(k, time.Minute))
		if err != nil {
			t.Fatalf("Acquire(%q) = %v, want a lease: each key its own lock", k, err)
		}
		defer l.Release(t.Context())
		if l.Token() <= last {
			t.Errorf("token %d after %d", l.Token(), last)
		}
		last = l.Token()
		h, err := judge.Inspect(t.Context(), k)
		if err != nil || h.TTL < 58*time.Second || h.TTL > time.Minute {
			t.Errorf("Inspect(%q) = TTL %v, %v; want a lease of about a minute", k, h.TTL, err)
		}
	}
	_, err := e.Acquire(t.Context(), req(long+"y", time.Minute))
	if !errors.Is(err, executor.ErrInvalidKey) {
		t.Errorf("Acquire of a key one byte over the limit = %v, want ErrInvalidKey", err)
	}
}

// TestSession_openTransaction: a connection of the pool that other code
// left inside a transaction (BEGIN, and work not committed) is refused
// with ErrInvalidConfig saying so; the executor neither commits nor rolls
// back that work.
func TestSession_openTransaction(t *testing.T) {
	t.Parallel()
	db := rootDB(t)
	run(t, db, "CREATE TABLE IF NOT EXISTS other_work (v INT) ENGINE=InnoDB")
	db.SetMaxOpenConns(1)
	e := newExecutor(t, db, mysql.Options{})
	key := uniq(t, "opentx:")
	if _, err := e.Acquire(t.Context(), req(key+"warm", time.Minute)); err != nil {
		t.Fatal(err) // Check ran: the next attempt goes straight to the acquire statement
	}
	run(t, db, "BEGIN", "INSERT INTO other_work VALUES (7)")
	_, err := e.Acquire(t.Context(), req(key, time.Minute))
	if !errors.Is(err, executor.ErrInvalidConfig) || !strings.Contains(err.Error(), "inside a transaction") {
		t.Fatalf("Acquire on a connection inside a transaction = %v, want ErrInvalidConfig saying so", err)
	}
	run(t, db, "ROLLBACK")
	var n int
	if err := db.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM other_work WHERE v = 7").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the other code's work: %d rows, %v; want 0 (rolled back by it, never committed by the executor)", n, err)
	}
}
