package mysql_test

import (
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testwait"
)

// The claim-lapse cases (see internal/exectest's Lapse) on MySQL: the
// same protocol as PostgreSQL's (serve keeps a served entry, lock_turn
// hands a lapsed claim on and resumes the stalled waiter's entry).
func TestClaim_lapsed(t *testing.T)        { exectest.Lapsed(t, myLapse(t)) }
func TestClaim_lapsedReaders(t *testing.T) { exectest.LapsedReaders(t, myLapse(t)) }
func TestClaim_lapsedTaken(t *testing.T)   { exectest.LapsedTaken(t, myLapse(t)) }

// myLapse gives the cases executors over one pool of the test server.
func myLapse(t *testing.T) exectest.Lapse {
	db := rootDB(t)
	return exectest.Lapse{
		New: func(t *testing.T, window time.Duration) executor.Executor {
			return newExecutor(t, db, mysql.Options{ClaimWindow: window})
		},
		AwaitLapse: func(t *testing.T, key string) {
			t.Helper()
			var lapsed bool
			if !testwait.Until(10*time.Second, func() bool {
				err := db.QueryRowContext(t.Context(), `SELECT expires <= TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))
					FROM lock4go_locks WHERE k = ? AND owner LIKE 'lock4go:claim:%'`, key).Scan(&lapsed)
				return err == nil && lapsed
			}) {
				t.Fatal("the claim on the key did not lapse within 10s")
			}
		},
	}
}
