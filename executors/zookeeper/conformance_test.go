package zookeeper

import (
	"testing"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
)

func TestConformance(t *testing.T) {
	addr := server(t)
	executortest.Run(t, func(t *testing.T) executor.Executor {
		return newExecutor(t, dial(t, testSession, addr), Options{})
	}, executortest.Options{NoExpiry: true, PermitsUnchecked: true})
}
