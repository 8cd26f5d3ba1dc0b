package mysql_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testserver"
)

// The package's server, started by TestMain: one MariaDB with a database
// "lock4go", migrated with the default Options.
var (
	mdbSrv *testserver.Server
	mdbErr error
)

// testDB is the database of the package's tests.
const testDB = "lock4go"

func TestMain(m *testing.M) {
	mdbSrv, mdbErr = testserver.StartMariaDB()
	if mdbErr == nil {
		mdbErr = setUp(mdbSrv.Addr())
	}
	exectest.Exit(m.Run(), mdbSrv)
}

// setUp creates the test database on the server at addr and migrates it.
func setUp(addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	root, err := sql.Open("mysql", dsn(addr, "root", ""))
	if err != nil {
		return err
	}
	defer root.Close()
	if _, err := root.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+testDB); err != nil {
		return err
	}
	db, err := sql.Open("mysql", dsn(addr, "root", testDB))
	if err != nil {
		return err
	}
	defer db.Close()
	return mysql.Migrate(ctx, db, mysql.Options{})
}
