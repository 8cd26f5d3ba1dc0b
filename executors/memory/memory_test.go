package memory_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/memory"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestConformance(t *testing.T) {
	// Every call returns the same executor: in-process locks are shared by
	// everything that uses one executor value, like a backend server.
	e := memory.New(memory.Options{})
	executortest.Run(t, func(*testing.T) executor.Executor { return e }, executortest.Options{})
}
