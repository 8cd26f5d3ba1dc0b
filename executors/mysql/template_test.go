package mysql_test

import (
	"errors"
	"testing"
	"time"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/mysql"
)

// TestTemplate_configErrors: a wrong configuration ends a Lock with a 20s
// acquire timeout at its first attempt with ErrInvalidConfig, in well under
// a second, instead of retrying until the timeout as a backend error: a
// DSN naming a database that does not exist (1049), a user without a right
// on the database (1044), a user the server does not know (1045), and a
// database Migrate never ran in.
func TestTemplate_configErrors(t *testing.T) {
	t.Parallel()
	root := openDB(t, dsn(server(t).Addr(), "root", ""))
	name, _ := freshDB(t)
	run(t, root, "DROP USER IF EXISTS 'norights'@'%'", "CREATE USER 'norights'@'%'")
	t.Cleanup(func() { _, _ = root.ExecContext(t.Context(), "DROP USER IF EXISTS 'norights'@'%'") })
	for _, c := range []struct{ name, dsn string }{
		{"no such database", dsn(server(t).Addr(), "root", "nowhere")},
		{"no right on the database", dsn(server(t).Addr(), "norights", testDB)},
		{"unknown user", dsn(server(t).Addr(), "nobody", testDB)},
		{"not migrated", dsn(server(t).Addr(), "root", name)},
		// A DBA's SET GLOBAL sql_safe_updates = 1 (or the DSN's) refuses
		// the renewals' and the sweep's statements (error 1175): before,
		// Check failed with a backend error the Template retried until the
		// acquire timeout.
		{"sql_safe_updates", dsn(server(t).Addr(), "root", testDB) + "&sql_safe_updates=1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tpl, err := lock4go.New(lock4go.Config{AcquireTimeout: 20 * time.Second}, newExecutor(t, openDB(t, c.dsn), mysql.Options{}))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = tpl.Lock(t.Context(), uniq(t, "config:"))
			took := time.Since(start)
			if !errors.Is(err, lock4go.ErrInvalidConfig) || took > 5*time.Second {
				t.Fatalf("Lock = %v after %v, want ErrInvalidConfig at once", err, took)
			}
			t.Logf("%v: %v", took.Round(time.Millisecond), err)
		})
	}
}
