package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/lock4go/lock4go/internal/testserver"
)

// The servers and subjects of the package's tests and benchmarks, started
// once in TestMain.
var (
	testEnv     *Env
	testCatalog *Catalog
	testErr     error
)

func TestMain(m *testing.M) {
	FleetWorkerMain() // the fleet test re-executes this binary as its workers
	testEnv, testErr = Start()
	if testErr == nil {
		testCatalog, testErr = NewCatalog(context.Background(), testEnv)
	}
	code := m.Run()
	var err error
	if testCatalog != nil {
		err = testCatalog.Close()
	}
	if testEnv != nil {
		err = errors.Join(err, testEnv.Close())
	}
	if redlockEnv != nil {
		err = errors.Join(err, redlockEnv.Close())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "closing:", err)
		code = max(code, 1)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "leaked goroutines:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// catalog returns the shared subjects, or skips or fails tb when the
// servers did not start.
func catalog(tb testing.TB) (*Env, *Catalog) {
	tb.Helper()
	testserver.Check(tb, testErr)
	return testEnv, testCatalog
}
