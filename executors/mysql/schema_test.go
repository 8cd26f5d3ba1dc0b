package mysql_test

import (
	"database/sql"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/mysql"
)

// freshDB creates an empty database named after the test and returns a
// *sql.DB of root on it; it is dropped at the end of the test.
func freshDB(t *testing.T) (name string, db *sql.DB) {
	t.Helper()
	name = "t_" + strings.ToLower(strings.NewReplacer("/", "_", "-", "_").Replace(t.Name()))
	if len(name) > 64 {
		name = name[:64]
	}
	root := openDB(t, dsn(server(t).Addr(), "root", ""))
	run(t, root, "DROP DATABASE IF EXISTS "+name, "CREATE DATABASE "+name)
	t.Cleanup(func() { _, _ = root.ExecContext(t.Context(), "DROP DATABASE IF EXISTS "+name) })
	return name, openDB(t, dsn(server(t).Addr(), "root", name))
}

// TestSchema_mysqlClient: the SQL of mysql.Schema, which docs/mysql.md
// prints for migration tools, runs as it is in the mysql command-line
// client (its DELIMITER lines included), and leaves what Migrate would:
// Check passes, and Migrate finds nothing to do.
func TestSchema_mysqlClient(t *testing.T) {
	client, err := exec.LookPath("mariadb")
	if err != nil {
		t.Skip("no mariadb client")
	}
	name, db := freshDB(t)
	sql, err := mysql.Schema(mysql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(server(t).Addr(), ":")
	cmd := exec.CommandContext(t.Context(), client, "--no-defaults", "-h", host, "-P", port, "-u", "root", name)
	cmd.Stdin = strings.NewReader(sql)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mariadb < Schema: %v\n%s", err, out)
	}
	if err := mysql.Check(t.Context(), db, mysql.Options{}); err != nil {
		t.Fatalf("Check after the client ran Schema = %v", err)
	}
}

// TestMigrate_concurrent: Migrate run by four processes at once (four
// pools) creates the objects once and succeeds everywhere; run again it
// changes nothing.
func TestMigrate_concurrent(t *testing.T) {
	name, db := freshDB(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		d := openDB(t, dsn(server(t).Addr(), "root", name))
		wg.Go(func() { errs[i] = mysql.Migrate(t.Context(), d, mysql.Options{}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Migrate %d = %v", i, err)
		}
	}
	if err := mysql.Migrate(t.Context(), db, mysql.Options{}); err != nil {
		t.Fatalf("Migrate again = %v", err)
	}
	if err := mysql.Check(t.Context(), db, mysql.Options{}); err != nil {
		t.Fatalf("Check = %v", err)
	}
}

// TestMigrate_strictProcedures: the procedures keep the strict sql_mode
// Migrate creates them under, whatever the session's (here none at all):
// a value too long for a column is an error inside them, never a
// truncation that would make two keys one.
func TestMigrate_strictProcedures(t *testing.T) {
	name, _ := freshDB(t)
	db := openDB(t, dsn(server(t).Addr(), "root", name)+"&sql_mode=%27%27")
	if err := mysql.Migrate(t.Context(), db, mysql.Options{}); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(t.Context(), "SELECT ROUTINE_NAME, SQL_MODE FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?", name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var r, mode string
		if err := rows.Scan(&r, &mode); err != nil {
			t.Fatal(err)
		}
		n++
		if !strings.Contains(mode, "STRICT_ALL_TABLES") {
			t.Errorf("procedure %s has sql_mode %q, want STRICT_ALL_TABLES in it", r, mode)
		}
	}
	if n == 0 {
		t.Fatal("no procedures")
	}
}

// TestCheck_configErrors: what Check says of a DSN without a database, of
// a database Migrate never ran in, and of a nil *sql.DB: each an
// ErrInvalidConfig saying what to do.
func TestCheck_configErrors(t *testing.T) {
	_, fresh := freshDB(t)
	for _, c := range []struct {
		name string
		db   *sql.DB
		want string
	}{
		{"no database", openDB(t, dsn(server(t).Addr(), "root", "")), "names no database"},
		{"not migrated", fresh, "run mysql.Migrate"},
		{"nil", nil, "nil *sql.DB"},
	} {
		err := mysql.Check(t.Context(), c.db, mysql.Options{})
		if !errors.Is(err, executor.ErrInvalidConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Check = %v, want ErrInvalidConfig saying %q", c.name, err, c.want)
		}
	}
}
