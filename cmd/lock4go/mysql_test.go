package main

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	myexec "github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/internal/testserver"
)

// startMySQL starts the MariaDB server of the tests and creates the
// database "lock4go" and the executor's schema in it.
func startMySQL() (*testserver.Server, error) {
	s, err := testserver.StartMariaDB()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := migrateMySQL(ctx, s.Addr()); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// migrateMySQL creates the database "lock4go" at addr and migrates it.
func migrateMySQL(ctx context.Context, addr string) error {
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
	return myexec.Migrate(ctx, db, myexec.Options{})
}

// mysqlDSN is the DSN of the test database at addr.
func mysqlDSN(addr string) string { return "root@tcp(" + addr + ")/lock4go" }

func myCase() backendCase {
	addr := ""
	if mySrv != nil {
		addr = mySrv.Addr()
	}
	return backendCase{kind: "mysql", flags: []string{"--mysql", "root@" + addr + "/lock4go"}, executor: func(t *testing.T) executor.Executor {
		db, err := sql.Open("mysql", mysqlDSN(addr))
		if err != nil {
			t.Fatal(err)
		}
		e, err := myexec.New(db, myexec.Options{Logger: discard})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close(); _ = db.Close() })
		return e
	}}
}

// TestMySQL_missingGrants: a user without rights on the lock tables is
// stopped when the tool connects, with the GRANT statements to run,
// instead of failing later, call by call.
func TestMySQL_missingGrants(t *testing.T) {
	testserver.Check(t, myErr)
	root, err := sql.Open("mysql", mysqlDSN(mySrv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, q := range []string{"DROP USER IF EXISTS 'cli_norights'@'%'", "CREATE USER 'cli_norights'@'%'",
		"GRANT SELECT ON lock4go.lock4go_locks TO 'cli_norights'@'%'"} {
		if _, err := root.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	defer root.ExecContext(context.WithoutCancel(t.Context()), "DROP USER IF EXISTS 'cli_norights'@'%'")
	r := runCLI(t, "", nil, "inspect", "--mysql", "cli_norights@"+mySrv.Addr()+"/lock4go", "k")
	wantCode(t, r, exitFailure)
	if want := "GRANT EXECUTE ON PROCEDURE lock4go_inspect TO 'cli_norights'@'%';"; !strings.Contains(r.stderr, want) {
		t.Fatalf("stderr %q lacks %q", r.stderr, want)
	}
}

// TestMySQL_readOnlyUser: an operator's user that may only inspect
// (SELECT on the tables, EXECUTE on lock4go_inspect) runs inspect;
// release --force, which writes, is stopped with the grants it lacks.
func TestMySQL_readOnlyUser(t *testing.T) {
	testserver.Check(t, myErr)
	root, err := sql.Open("mysql", mysqlDSN(mySrv.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, q := range []string{"DROP USER IF EXISTS 'cli_viewer'@'%'", "CREATE USER 'cli_viewer'@'%'",
		"GRANT SELECT ON lock4go.* TO 'cli_viewer'@'%'",
		"GRANT EXECUTE ON PROCEDURE lock4go.lock4go_inspect TO 'cli_viewer'@'%'"} {
		if _, err := root.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	defer root.ExecContext(context.WithoutCancel(t.Context()), "DROP USER IF EXISTS 'cli_viewer'@'%'")
	dsn := "cli_viewer@" + mySrv.Addr() + "/lock4go"

	held, free := uniqueKey(t), uniqueKey(t)
	l := hold(t, myCase(), held)
	r := runCLI(t, "", nil, "inspect", "--mysql", dsn, held, free)
	wantCode(t, r, exitNotHeld)
	if !strings.Contains(r.stdout, l.Owner()) || strings.Contains(r.stderr, "GRANT") {
		t.Fatalf("inspect as a read-only user: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	r = runCLI(t, "y\n", nil, "release", "--force", "--mysql", dsn, held)
	wantCode(t, r, exitFailure)
	if want := "GRANT EXECUTE ON PROCEDURE lock4go_release TO 'cli_viewer'@'%';"; !strings.Contains(r.stderr, want) {
		t.Fatalf("release as a read-only user: stderr %q lacks %q", r.stderr, want)
	}
}
