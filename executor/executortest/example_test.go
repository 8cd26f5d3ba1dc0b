package executortest_test

import (
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/memory"
)

// A new executor runs the suite from its conformance_test.go, with a
// factory that makes a fresh executor per case (closed at the case's
// end) and the options its backend needs.
func ExampleRun() {
	_ = func(t *testing.T) { // func TestConformance(t *testing.T)
		executortest.Run(t, func(t *testing.T) executor.Executor {
			e := memory.New(memory.Options{})
			t.Cleanup(func() { _ = e.Close() })
			return e
		}, executortest.Options{ShortTTL: 300 * time.Millisecond})
	}
}
