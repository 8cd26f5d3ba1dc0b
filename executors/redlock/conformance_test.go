package redlock_test

import (
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/redlock"
)

// TestConformance runs the suite over three masters. Their Redis
// executors hand a released key to the next waiter as a claim of their
// default window (200 ms), which the suite is told.
func TestConformance(t *testing.T) {
	a := addrs(t)
	executortest.Run(t, func(t *testing.T) executor.Executor {
		return newExecutor(t, a, redlock.Options{})
	}, executortest.Options{ShortTTL: 300 * time.Millisecond, ClaimWindow: 200 * time.Millisecond})
}
