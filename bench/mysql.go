package bench

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	_ "github.com/go-sql-driver/mysql" // the database/sql driver of MySQL

	"github.com/lock4go/lock4go/executor"
	lmysql "github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/internal/testserver"
)

// MySQL is a MariaDB server (MySQL 8 is not packaged here): lock4go's
// executor, the raw floor of its own two statements, and GET_LOCK on a
// pinned connection.
const MySQL Backend = "mysql"

// startMySQL starts the MariaDB server of a run and creates the database
// "lock4go" and lock4go's schema in it. Its commits are written but not
// flushed (innodb_flush_log_at_trx_commit = 2, and the redo log written
// through the page cache: innodb_log_file_buffering), as the PostgreSQL run's
// (fsync off): a flush's price is the disk's, not the protocol's, and the
// VM's disk is slow and shared. The executor, which refuses such a server
// by default, is told to accept it ([benchOptions]).
func startMySQL() (*testserver.Server, error) {
	// 64 fleet processes with a pool and a wake connection each, and a
	// connection per waiter of GET_LOCK.
	s, err := testserver.StartMariaDB("--max-connections=2000", "--innodb-flush-log-at-trx-commit=2", "--innodb-log-file-buffering=ON")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := setUpMySQL(ctx, s.Addr()); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	return s, nil
}

// setUpMySQL creates the database and schema at addr.
func setUpMySQL(ctx context.Context, addr string) error {
	root, err := sql.Open("mysql", "root@tcp("+addr+")/")
	if err != nil {
		return err
	}
	defer root.Close()
	if _, err := root.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS lock4go"); err != nil {
		return err
	}
	db, err := sql.Open("mysql", mysqlDSN(addr))
	if err != nil {
		return err
	}
	defer db.Close()
	return lmysql.Migrate(ctx, db, benchOptions)
}

// benchOptions are the executor's options in the runs: the defaults, but
// for a server that does not flush its commits (see [startMySQL]).
var benchOptions = lmysql.Options{AllowUnsafeDurability: true}

// mysqlDSN is the DSN of the run's database at addr: no optional setting
// (the executor needs none).
func mysqlDSN(addr string) string { return "root@tcp(" + addr + ")/lock4go" }

// MySQLDB returns a *sql.DB of up to maxOpen connections to env's MySQL,
// closed with env.
func (e *Env) MySQLDB(maxOpen int) (*sql.DB, error) {
	db, err := sql.Open("mysql", mysqlDSN(e.MySQLAddr))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(maxOpen)
	db.SetMaxIdleConns(maxOpen)
	e.onClose(db.Close)
	return db, nil
}

// mysqlExecutor makes lock4go MySQL executors, each over a *sql.DB of its
// own of maxOpen connections (one of them for the wake connection while
// it waits).
func mysqlExecutor(env *Env, maxOpen int) ExecutorFactory {
	return func(context.Context) (executor.Executor, func() error, error) {
		db, err := env.MySQLDB(maxOpen)
		if err != nil {
			return nil, nil, err
		}
		o := benchOptions
		o.Logger = slog.New(slog.DiscardHandler) // its warning that the server does not flush
		e, err := lmysql.New(db, o)
		if err != nil {
			return nil, nil, err
		}
		return e, e.Close, nil
	}
}

// RawMySQL is the MySQL floor: lock4go's own acquire and release
// statements sent by hand (the same procedures, arguments and text
// protocol), with no Template, no waiting and no renewal.
func RawMySQL(db *sql.DB) *Subject {
	return &Subject{
		Name: "raw mysql", Backend: MySQL, Kind: KindRaw,
		Note:      "CALL lock4go_acquire + CALL lock4go_release by hand",
		newLocker: shared(LockerFunc(func(ctx context.Context, key string) (Unlock, error) { return rawMySQL(ctx, db, key) })),
	}
}

// rawMySQL is one acquire statement and its release.
func rawMySQL(ctx context.Context, db *sql.DB, key string) (Unlock, error) {
	own := owner()
	k, o, m := hexLit(key), hexLit(own), hexLit(rawMember)
	var (
		token  int64
		denied bool
	)
	err := db.QueryRowContext(ctx, "CALL lock4go_acquire("+k+", "+o+", "+strconv.FormatInt(leaseTTL.Milliseconds(), 10)+", "+m+", 30000, 200, FALSE)").Scan(&token, &denied)
	switch {
	case err != nil:
		return nil, err
	case token <= 0:
		return nil, errBusy
	}
	return func(ctx context.Context) error {
		var n int64
		err := db.QueryRowContext(ctx, "CALL lock4go_release("+k+", "+o+", 200, "+m+")").Scan(&n, &denied)
		if err == nil && n != 1 {
			err = fmt.Errorf("release of %q: not held", key)
		}
		return err
	}, nil
}

// hexLit returns s as a hexadecimal literal.
func hexLit(s string) string { return "X'" + hex.EncodeToString([]byte(s)) + "'" }

// GetLock is a named lock, as services take them by hand: a connection
// taken from the pool for the whole hold, GET_LOCK(key, timeout) (waiting
// in the server), and RELEASE_LOCK on the same connection. No lease, no
// fencing token; through a pool or proxy that recycles connections it is
// unsafe (see executors/mysql).
func GetLock(db *sql.DB) *Subject {
	return &Subject{
		Name: "GET_LOCK", Backend: MySQL, Kind: KindPeer, Waits: true,
		Note:      "named lock on a pinned connection; waits in the server",
		newLocker: shared(LockerFunc(func(ctx context.Context, key string) (Unlock, error) { return getLock(ctx, db, key) })),
	}
}

// getLock takes the named lock of key on a connection of db, waiting up
// to ctx's deadline.
func getLock(ctx context.Context, db *sql.DB, key string) (Unlock, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	wait := 3.0
	if d, ok := ctx.Deadline(); ok {
		wait = max(time.Until(d).Seconds(), 0)
	}
	name := lockName(key)
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK('"+name+"', "+strconv.FormatFloat(wait, 'f', 3, 64)+")").Scan(&got); err != nil {
		_ = conn.Close()
		return nil, err
	}
	if got.Int64 != 1 {
		_ = conn.Close()
		return nil, errBusy
	}
	return func(ctx context.Context) error {
		defer conn.Close()
		var ok sql.NullInt64
		err := conn.QueryRowContext(ctx, "SELECT RELEASE_LOCK('"+name+"')").Scan(&ok)
		if err == nil && ok.Int64 != 1 {
			err = fmt.Errorf("RELEASE_LOCK of %q: not held", key)
		}
		return err
	}, nil
}

// lockName maps a key to a named lock (at most 64 characters): a hash.
func lockName(key string) string { return "b:" + strconv.FormatInt(keyHash(key), 16) }

// mysqlCounter counts the statements clients sent the server (SHOW
// GLOBAL STATUS: Questions, which leaves out the statements that run
// inside procedures, as pg_stat_statements' top level does), leaving out
// its own (Com_show_status).
type mysqlCounter struct{ addr string }

func (c mysqlCounter) Snapshot(ctx context.Context) (Sample, error) {
	db, err := sql.Open("mysql", mysqlDSN(c.addr))
	if err != nil {
		return Sample{}, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Com_show_status')")
	if err != nil {
		return Sample{}, err
	}
	defer rows.Close()
	var questions, shows int64
	for rows.Next() {
		var (
			name string
			v    int64
		)
		if err := rows.Scan(&name, &v); err != nil {
			return Sample{}, err
		}
		if name == "Questions" {
			questions = v
		} else {
			shows = v
		}
	}
	return Sample{Server: map[string]int64{"statements": questions - shows}}, rows.Err()
}

// mysqlUse reads the statements clients sent the server ([mysqlCounter])
// and the CPU of its one process.
func mysqlUse(ctx context.Context, env *Env) (backendUse, error) {
	s, err := mysqlCounter{env.MySQLAddr}.Snapshot(ctx)
	if err != nil {
		return backendUse{}, err
	}
	u := backendUse{cmds: s.Server["statements"]}
	u.cpu, err = processCPU(env.serverPID(MySQL))
	return u, err
}

// mysqlSteps are the catalog's MySQL subjects, in report order: the raw
// floor, lock4go and GET_LOCK.
func mysqlSteps(ctx context.Context, env *Env, add func(*Subject, error) error) ([]func() error, error) {
	db, err := env.MySQLDB(128)
	if err != nil {
		return nil, err
	}
	return []func() error{
		func() error { return add(RawMySQL(db), nil) },
		func() error { return add(Lock4go(ctx, MySQL, 1, mysqlExecutor(env, 4))) },
		func() error { return add(GetLock(db), nil) },
	}, nil
}

// mysqlFleetSubject builds a fleet worker's MySQL subject: one *sql.DB for
// the process.
func mysqlFleetSubject(ctx context.Context, env *Env, name string) (*Subject, error) {
	if name == "lock4go/mysql" {
		return Lock4go(ctx, MySQL, 1, mysqlExecutor(env, 4))
	}
	db, err := env.MySQLDB(128)
	if err != nil {
		return nil, err
	}
	return GetLock(db), nil
}
