package mysql_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/internal/testserver"
)

// TestCheck_durability: a server that may lose acknowledged commits in a
// crash is refused with ErrInvalidConfig naming the setting, one setting
// at a time: innodb_flush_log_at_trx_commit = 2, then sync_binlog = 0
// with the binary log on; binlog_format = STATEMENT is refused too (it
// rejects the executor's READ COMMITTED writes). AllowUnsafeDurability
// accepts the first two.
func TestCheck_durability(t *testing.T) {
	t.Parallel()
	s, err := testserver.StartMariaDB("--log-bin", "--server-id=1", "--innodb-flush-log-at-trx-commit=2",
		"--sync-binlog=0", "--binlog-format=STATEMENT")
	testserver.Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	root := openDB(t, dsn(s.Addr(), "root", ""))
	run(t, root, "CREATE DATABASE "+testDB)
	db := openDB(t, dsn(s.Addr(), "root", testDB))
	if err := mysql.Migrate(t.Context(), db, mysql.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		want, fix string
		allow     bool // AllowUnsafeDurability accepts it
	}{
		{"binlog_format is STATEMENT", "SET GLOBAL binlog_format = 'ROW'", false},
		{"innodb_flush_log_at_trx_commit is 2", "SET GLOBAL innodb_flush_log_at_trx_commit = 1", true},
		{"sync_binlog is 0", "SET GLOBAL sync_binlog = 1", true},
	} {
		db := openDB(t, dsn(s.Addr(), "root", testDB)) // new sessions: binlog_format is a session's too
		err := mysql.Check(t.Context(), db, mysql.Options{})
		if !errors.Is(err, executor.ErrInvalidConfig) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("Check = %v, want ErrInvalidConfig saying %q", err, c.want)
		}
		err = mysql.Check(t.Context(), db, mysql.Options{AllowUnsafeDurability: true, Logger: testLogger(t)})
		if c.allow != (err == nil) {
			t.Fatalf("Check with AllowUnsafeDurability = %v, want nil: %v", err, c.allow)
		}
		run(t, root, c.fix)
	}
	if err := mysql.Check(t.Context(), openDB(t, dsn(s.Addr(), "root", testDB)), mysql.Options{}); err != nil {
		t.Fatalf("Check with durable settings = %v", err)
	}
}

// TestCheck_nosync: innodb_flush_method = nosync, which never flushes, is
// refused as a server that may lose commits.
func TestCheck_nosync(t *testing.T) {
	t.Parallel()
	s, err := testserver.StartMariaDB("--innodb-flush-method=nosync")
	testserver.Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	run(t, openDB(t, dsn(s.Addr(), "root", "")), "CREATE DATABASE "+testDB)
	db := openDB(t, dsn(s.Addr(), "root", testDB))
	if err := mysql.Migrate(t.Context(), db, mysql.Options{}); err != nil {
		t.Fatal(err)
	}
	err = mysql.Check(t.Context(), db, mysql.Options{})
	if !errors.Is(err, executor.ErrInvalidConfig) || !strings.Contains(err.Error(), "innodb_flush_method is nosync") {
		t.Fatalf("Check = %v, want ErrInvalidConfig naming innodb_flush_method", err)
	}
}
