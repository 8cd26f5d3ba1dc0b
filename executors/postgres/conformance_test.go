package postgres_test

import (
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/testserver"
)

// TestConformance runs the suite against the server, once directly and
// once through PgBouncer in transaction mode (the LISTEN connection goes
// to the server: Options.ListenDSN).
func TestConformance(t *testing.T) {
	s := server(t)
	t.Run("direct", func(t *testing.T) {
		executortest.Run(t, func(t *testing.T) executor.Executor {
			return newExecutor(t, newPool(t, s.Addr()), postgres.Options{})
		}, executortest.Options{ShortTTL: time.Second})
	})
	t.Run("pgbouncer", func(t *testing.T) {
		b := pgBouncer(t)
		executortest.Run(t, func(t *testing.T) executor.Executor {
			return newExecutor(t, newPool(t, b.Addr()), postgres.Options{ListenDSN: testserver.PostgresDSN(s.Addr())})
		}, executortest.Options{ShortTTL: time.Second})
	})
}
