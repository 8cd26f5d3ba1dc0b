package redlock_test

import (
	"errors"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testserver"
)

// The package's three masters, started by TestMain; tests that restart or
// stop a master start their own.
var (
	masters   []*testserver.Server
	mastersOK error
)

func TestMain(m *testing.M) {
	// go-redis logs every failed dial itself; the tests close and blackhole
	// masters on purpose, and the executors report what matters.
	goredis.SetLogger(&logging.VoidLogger{})
	for range 3 {
		s, err := testserver.StartRedis()
		if err != nil {
			mastersOK = errors.Join(mastersOK, err)
			break
		}
		masters = append(masters, s)
	}
	exectest.Exit(m.Run(), masters...)
}
