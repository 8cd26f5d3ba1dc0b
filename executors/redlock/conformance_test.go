package redlock_test

import (
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/redlock"
)

func TestConformance(t *testing.T) {
	a := addrs(t)
	executortest.Run(t, func(t *testing.T) executor.Executor {
		return newExecutor(t, a, redlock.Options{})
	}, executortest.Options{ShortTTL: 300 * time.Millisecond})
}
