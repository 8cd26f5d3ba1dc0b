package mysql_test

import (
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/mysql"
)

// TestConformance runs the suite against the server.
func TestConformance(t *testing.T) {
	s := server(t)
	executortest.Run(t, func(t *testing.T) executor.Executor {
		return newExecutor(t, openDB(t, dsn(s.Addr(), "root", testDB)), mysql.Options{})
	}, executortest.Options{ShortTTL: time.Second})
}
