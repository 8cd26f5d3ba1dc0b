package mysql_test

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testwait"
)

// The SQL blocks of docs/mysql.md's section "Users and grants", in order:
// the Migrate user's, then the executor's grants for the default options
// and for a database of its own.
const (
	blockMigrator = iota
	blockDefault
	blockOwnDatabase
	docBlocks
)

// ownDatabase is the database of the docs' examples of a database of its
// own; appDatabase the DSN's database of the default options' example.
const (
	ownDatabase = "locking"
	appDatabase = "app"
)

// grantBlocks returns the SQL blocks of docs/mysql.md's section "Users and grants".
func grantBlocks(t *testing.T) []string {
	return exectest.SQLBlocks(t, "../../docs/mysql.md", "Users and grants", docBlocks)
}

// TestGrants_docs: the docs' grant lines are those of mysql.Grants, so that
// Check, which names what is missing from them, and the docs agree.
func TestGrants_docs(t *testing.T) {
	blocks := grantBlocks(t)
	for i, o := range map[int]mysql.Options{blockDefault: {}, blockOwnDatabase: {Database: ownDatabase}} {
		want, err := mysql.Grants(o, mysql.Account("app", ""))
		if err != nil {
			t.Fatal(err)
		}
		if blocks[i] != want {
			t.Errorf("docs/mysql.md's grants for Database %q differ from mysql.Grants(opts, mysql.Account(\"app\", \"\")):\n%s\nwant:\n%s", o.Database, blocks[i], want)
		}
	}
}

// TestGrants_default: a user with exactly the docs' grant lines for the
// default options, run by root in the database, runs Migrate after root
// did (creating nothing) and every operation of the executor. (Not
// parallel: the docs' users are the server's.)
func TestGrants_default(t *testing.T) {
	root := openDB(t, dsn(server(t).Addr(), "root", ""))
	newDatabase(t, root, appDatabase)
	admin := openDB(t, dsn(server(t).Addr(), "root", appDatabase))
	if err := mysql.Migrate(t.Context(), admin, mysql.Options{}); err != nil {
		t.Fatal(err)
	}
	newUser(t, root, "app")
	runBlock(t, admin, grantBlocks(t)[blockDefault])
	app := openDB(t, dsn(server(t).Addr(), "app", appDatabase))
	if err := mysql.Migrate(t.Context(), app, mysql.Options{}); err != nil {
		t.Fatalf("Migrate by the app user after root's = %v", err)
	}
	exercise(t, app, mysql.Options{})
}

// TestGrants_ownDatabase: in a database of its own, a user with only the
// docs' rights for Migrate creates the objects; a user with exactly the
// docs' grant lines runs Migrate again and every operation of the
// executor; and each right taken away is named by Check and refused at
// the first Acquire.
func TestGrants_ownDatabase(t *testing.T) {
	root := openDB(t, dsn(server(t).Addr(), "root", ""))
	newDatabase(t, root, ownDatabase)
	newUser(t, root, "migrator")
	newUser(t, root, "app")
	blocks := grantBlocks(t)
	runBlock(t, root, blocks[blockMigrator])
	o := mysql.Options{Database: ownDatabase}
	if err := mysql.Migrate(t.Context(), openDB(t, dsn(server(t).Addr(), "migrator", "")), o); err != nil {
		t.Fatalf("Migrate by a user with the documented rights = %v", err)
	}
	if n := strings.Count(blocks[blockOwnDatabase], "\n"); n != objects(t, root) {
		t.Errorf("the grants have %d lines, Migrate created %d tables and procedures", n, objects(t, root))
	}
	runBlock(t, root, blocks[blockOwnDatabase])
	app := openDB(t, dsn(server(t).Addr(), "app", ""))
	if err := mysql.Migrate(t.Context(), app, o); err != nil {
		t.Fatalf("Migrate by the app user after the migrator's = %v", err)
	}
	exercise(t, app, o)
	t.Run("missing", func(t *testing.T) { revokeEach(t, root, app, o) })
}

// objects counts the tables and procedures of ownDatabase.
func objects(t *testing.T, root *sql.DB) int {
	t.Helper()
	var n int
	err := root.QueryRowContext(t.Context(), `SELECT
		(SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?) +
		(SELECT COUNT(*) FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?)`, ownDatabase, ownDatabase).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// revokeEach takes one right at a time away from the user "app" and checks
// that Check names it with the line that grants it back, and that a new
// executor's first Acquire fails with ErrInvalidConfig and takes nothing.
func revokeEach(t *testing.T, root, app *sql.DB, o mysql.Options) {
	d := "`" + ownDatabase + "`."
	for _, c := range []struct{ revoke, names string }{
		{"DELETE ON " + d + "lock4go_locks", "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE `locking`.lock4go_locks TO 'app'@'%';"},
		{"SELECT ON " + d + "lock4go_shares", "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE `locking`.lock4go_shares TO 'app'@'%';"},
		{"INSERT ON " + d + "lock4go_waiters", "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE `locking`.lock4go_waiters TO 'app'@'%';"},
		{"DELETE ON " + d + "lock4go_tokens", "GRANT SELECT, INSERT, DELETE ON TABLE `locking`.lock4go_tokens TO 'app'@'%';"},
		{"UPDATE ON " + d + "lock4go_wakes", "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE `locking`.lock4go_wakes TO 'app'@'%';"},
		{"EXECUTE ON PROCEDURE " + d + "lock4go_release", "GRANT EXECUTE ON PROCEDURE `locking`.lock4go_release TO 'app'@'%';"},
		{"EXECUTE ON PROCEDURE " + d + "lock4go_ring", "GRANT EXECUTE ON PROCEDURE `locking`.lock4go_ring TO 'app'@'%';"},
	} {
		t.Run(c.revoke, func(t *testing.T) {
			run(t, root, "REVOKE "+c.revoke+" FROM 'app'@'%'")
			defer run(t, root, "GRANT "+c.revoke+" TO 'app'@'%'")
			err := mysql.Check(t.Context(), app, o)
			if !errors.Is(err, executor.ErrInvalidConfig) || !strings.Contains(err.Error(), c.names) {
				t.Fatalf("Check = %v, want ErrInvalidConfig naming %s", err, c.names)
			}
			e := newExecutor(t, app, o)
			key := uniq(t, "revoked:")
			if l, err := e.Acquire(t.Context(), req(key, time.Minute)); !errors.Is(err, executor.ErrInvalidConfig) {
				if err == nil {
					_ = l.Release(t.Context())
				}
				t.Fatalf("first Acquire = %v, want ErrInvalidConfig", err)
			}
			var n int
			if err := root.QueryRowContext(t.Context(), "SELECT COUNT(*) FROM "+d+"lock4go_locks WHERE k = ?", key).Scan(&n); err != nil || n != 0 {
				t.Fatalf("%d rows of the refused key (%v), want none", n, err)
			}
		})
	}
}

// exercise runs, through db, every operation of the executor with options
// o: locks handed from one Template to a waiting other, read locks with a
// writer waiting behind them, permits, renewals, Inspect, ForceRelease and
// a sweep.
func exercise(t *testing.T, db *sql.DB, o mysql.Options) {
	t.Helper()
	ea, eb := newExecutor(t, db, o), newExecutor(t, db, o)
	cfg := lock4go.Config{Expire: 900 * time.Millisecond, AcquireTimeout: 10 * time.Second, RetryInterval: 2 * time.Second, Logger: testLogger(t)}
	a, err := lock4go.New(cfg, ea)
	if err != nil {
		t.Fatal(err)
	}
	b, err := lock4go.New(cfg, eb)
	if err != nil {
		t.Fatal(err)
	}
	handOff(t, a, b, uniq(t, "grants-lock:"))
	handOff(t, a, b, uniq(t, "grants-read:"), lock4go.Shared())
	permits(t, a, uniq(t, "grants-permits:"))
	key := uniq(t, "grants-force:")
	l, err := a.Lock(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 10*time.Second, "a renewal", func() bool { return renewals(a, key) > 0 })
	h, err := eb.Inspect(t.Context(), key)
	if err != nil || h.Owner != l.Owner() {
		t.Fatalf("Inspect = %+v, %v; want the holder", h, err)
	}
	if err := eb.ForceRelease(t.Context(), key, h); err != nil {
		t.Fatalf("ForceRelease = %v", err)
	}
	if err := eb.Sweep(t.Context()); err != nil {
		t.Fatalf("Sweep = %v", err)
	}
}

// handOff takes key with opts on a, queues b's Lock of key (a write lock)
// behind it, and checks that a's release hands it to b, well before b's
// retry interval (2s): through b's wake connection.
func handOff(t *testing.T, a, b *lock4go.Template, key string, opts ...lock4go.LockOption) {
	t.Helper()
	l, err := a.Lock(t.Context(), key, opts...)
	if err != nil {
		t.Fatalf("Lock(%q) = %v", key, err)
	}
	got := make(chan error, 1)
	go func() {
		w, err := b.Lock(t.Context(), key)
		if err == nil {
			err = w.Release(t.Context())
		}
		got <- err
	}()
	testwait.For(t, 10*time.Second, "the waiter queued", func() bool {
		h, err := b.Inspect(t.Context(), key)
		return err == nil && h.Waiters == 1
	})
	released := time.Now()
	if err := l.Release(t.Context()); err != nil {
		t.Fatalf("Release(%q) = %v", key, err)
	}
	if err := <-got; err != nil {
		t.Fatalf("the waiter's Lock(%q) = %v", key, err)
	}
	if d := time.Since(released); d > time.Second {
		t.Errorf("the hand-off of %q took %v: not woken", key, d)
	}
}

// permits takes both permits of a semaphore of two on key, is refused a
// third, and releases them.
func permits(t *testing.T, tpl *lock4go.Template, key string) {
	t.Helper()
	var held []*lock4go.Lock
	for range 2 {
		l, err := tpl.Lock(t.Context(), key, lock4go.WithPermits(2))
		if err != nil {
			t.Fatalf("permit = %v", err)
		}
		held = append(held, l)
	}
	if _, err := tpl.TryLock(t.Context(), key, lock4go.WithPermits(2)); !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("third permit of two = %v, want ErrNotAcquired", err)
	}
	for _, l := range held {
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

// renewals returns the watchdog's renewals of the lock tpl holds on key.
func renewals(tpl *lock4go.Template, key string) int {
	for _, li := range tpl.Snapshot().Held {
		if li.Key == key {
			return li.Renewals
		}
	}
	return 0
}

// newDatabase creates the database name through root, dropped at the end
// of the test.
func newDatabase(t *testing.T, root *sql.DB, name string) {
	t.Helper()
	run(t, root, "DROP DATABASE IF EXISTS `"+name+"`", "CREATE DATABASE `"+name+"`")
	t.Cleanup(func() { _, _ = root.ExecContext(t.Context(), "DROP DATABASE IF EXISTS `"+name+"`") })
}

// newUser creates the user name@'%' without a right, dropped at the end of
// the test.
func newUser(t *testing.T, root *sql.DB, name string) {
	t.Helper()
	run(t, root, "DROP USER IF EXISTS '"+name+"'@'%'", "CREATE USER '"+name+"'@'%'")
	t.Cleanup(func() { _, _ = root.ExecContext(t.Context(), "DROP USER IF EXISTS '"+name+"'@'%'") })
}

// runBlock runs each line of a block of SQL statements through db, on
// one connection.
func runBlock(t *testing.T, db *sql.DB, block string) {
	t.Helper()
	for line := range strings.Lines(block) {
		if s := strings.TrimSpace(line); s != "" {
			run(t, db, strings.TrimSuffix(s, ";"))
		}
	}
}
