package postgres_test

import (
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testwait"
)

// The claim-lapse cases (see internal/exectest's Lapse) on PostgreSQL.
func TestClaim_lapsed(t *testing.T)        { exectest.Lapsed(t, pgLapse(t)) }
func TestClaim_lapsedReaders(t *testing.T) { exectest.LapsedReaders(t, pgLapse(t)) }
func TestClaim_lapsedTaken(t *testing.T)   { exectest.LapsedTaken(t, pgLapse(t)) }

// pgLapse gives the cases executors over one pool of the test server.
func pgLapse(t *testing.T) exectest.Lapse {
	pool := newPool(t, server(t).Addr())
	return exectest.Lapse{
		New: func(t *testing.T, window time.Duration) executor.Executor {
			return newExecutor(t, pool, postgres.Options{ClaimWindow: window})
		},
		AwaitLapse: func(t *testing.T, key string) {
			t.Helper()
			var lapsed bool
			if !testwait.Until(10*time.Second, func() bool {
				err := pool.QueryRow(t.Context(), `SELECT expires_at <= clock_timestamp() FROM lock4go_locks
					WHERE key = $1 AND starts_with(owner, 'lock4go:claim:')`, key).Scan(&lapsed)
				return err == nil && lapsed
			}) {
				t.Fatal("the claim on the key did not lapse within 10s")
			}
		},
		Rows: func(t *testing.T, key string) int { return rows(t, key) },
	}
}
