package postgres_test

import (
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/testserver"
)

// claimWindow is the executors' Options.ClaimWindow in the suite: the
// default, told to the suite.
const claimWindow = 200 * time.Millisecond

// TestConformance runs the suite against the server, once directly and
// once through PgBouncer in transaction mode (the LISTEN connection goes
// to the server: Options.ListenDSN).
func TestConformance(t *testing.T) {
	s := server(t)
	o := executortest.Options{ShortTTL: time.Second, ClaimWindow: claimWindow}
	t.Run("direct", func(t *testing.T) {
		executortest.Run(t, func(t *testing.T) executor.Executor {
			return newExecutor(t, newPool(t, s.Addr()), postgres.Options{ClaimWindow: claimWindow})
		}, o)
	})
	t.Run("pgbouncer", func(t *testing.T) {
		b := pgBouncer(t)
		executortest.Run(t, func(t *testing.T) executor.Executor {
			return newExecutor(t, newPool(t, b.Addr()), postgres.Options{ClaimWindow: claimWindow, ListenDSN: testserver.PostgresDSN(s.Addr())})
		}, o)
	})
}
