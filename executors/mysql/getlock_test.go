package mysql_test

import (
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/mysql"
)

// getLock takes the named lock name through db, as a GET_LOCK mutex does,
// waiting up to wait seconds, and returns the answer and the session
// (connection id) that gave it. A session that ends releases its locks
// once the server has processed its end, which is not at once: a client
// that closed a connection, or a KILL, returns before.
func getLock(t *testing.T, db *sql.DB, name string, wait int) (got bool, id int64) {
	t.Helper()
	var n sql.NullInt64
	if err := db.QueryRowContext(t.Context(), "SELECT GET_LOCK(?, ?), CONNECTION_ID()", name, wait).Scan(&n, &id); err != nil {
		t.Fatal(err)
	}
	return n.Int64 == 1, id
}

// TestGetLock_pool shows why the executor's locks are rows, not GET_LOCK:
// a named lock belongs to the server session, which a pool of connections
// does not keep for the client that took it. With database/sql's pool:
//
//   - no idle connection kept (SetMaxIdleConns(0)): the session that took
//     the lock is closed when the statement returns, and the lock with it;
//     another client gets it while the first believes it holds it;
//   - one connection shared (SetMaxOpenConns(1)): a second client is handed
//     the session that holds the lock, and GET_LOCK, re-entrant per
//     session, grants it to it too;
//   - a session killed (KILL, or a proxy or the server ending it): the lock
//     is released and its taker is told nothing.
//
// The executor's lock, a row with its owner value, excludes the second
// client under all three. (Not parallel: it kills every connection.)
func TestGetLock_pool(t *testing.T) {
	name := uniq(t, "getlock:")
	if len(name) > 64 {
		name = name[len(name)-64:]
	}
	recycling := rootDB(t)
	recycling.SetMaxIdleConns(0)
	a, idA := getLock(t, recycling, name, 0)
	b, idB := getLock(t, recycling, name, 10)
	if !a || !b {
		t.Fatalf("no idle connections: GET_LOCK answered %v (session %d), then %v (session %d), want both granted", a, idA, b, idB)
	}
	t.Logf("no idle connections: client A's session %d closed with its lock, client B got it on session %d", idA, idB)

	shared := rootDB(t)
	shared.SetMaxOpenConns(1)
	a, idA = getLock(t, shared, name, 10)
	b, idB = getLock(t, shared, name, 0)
	if !a || !b || idA != idB {
		t.Fatalf("one connection: GET_LOCK answered %v (session %d), then %v (session %d), want both granted on one session", a, idA, b, idB)
	}
	t.Logf("one connection: clients A and B both hold the lock on session %d", idA)
	run(t, rootDB(t), "KILL CONNECTION "+fmtInt(idA))
	if got, id := getLock(t, rootDB(t), name, 10); !got {
		t.Fatal("the lock of a killed session was still held")
	} else {
		t.Logf("session %d killed: its lock went with it, and client C got it on session %d; A and B were told nothing", idA, id)
	}

	for _, c := range []struct {
		name string
		db   *sql.DB
	}{{"no idle connections", recycling}, {"one connection", shared}} {
		exclusive(t, c.name, c.db)
	}
}

// exclusive checks that the executor's lock over db excludes a second
// client sharing db, also after every connection of the server but the
// test's own was killed.
func exclusive(t *testing.T, what string, db *sql.DB) {
	t.Helper()
	a := newExecutor(t, db, mysql.Options{})
	c := newExecutor(t, db, mysql.Options{})
	key := uniq(t, "getlock:")
	l, err := a.Acquire(t.Context(), req(key, 30*time.Second))
	if err != nil {
		t.Fatalf("%s: Acquire = %v", what, err)
	}
	killAll(t)
	if _, err := c.Acquire(t.Context(), req(key, 30*time.Second)); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("%s: a second client's Acquire after its sessions were killed = %v, want ErrNotAcquired", what, err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatalf("%s: Release = %v", what, err)
	}
}

// killAll kills every client connection of the server but the one that
// asks.
func killAll(t *testing.T) {
	t.Helper()
	db := rootDB(t)
	rows, err := db.QueryContext(t.Context(), "SELECT ID FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND COMMAND <> 'Daemon' AND USER <> 'system user'")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	_ = rows.Close()
	for _, id := range ids {
		_, _ = db.ExecContext(t.Context(), "KILL CONNECTION "+fmtInt(id)) // some end meanwhile
	}
}
