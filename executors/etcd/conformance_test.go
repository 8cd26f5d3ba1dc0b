package etcd_test

import (
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
)

// conformanceOptions: etcd counts leases in whole seconds and its minimum
// TTL is 2s with the default election timeout.
var conformanceOptions = executortest.Options{ShortTTL: 2 * time.Second}

func TestExecutor_conformance(t *testing.T) {
	testserver.Check(t, srvErr)
	executortest.Run(t, func(t *testing.T) executor.Executor {
		return newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	}, conformanceOptions)
}
