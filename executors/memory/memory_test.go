package memory_test

import (
	"strings"
	"sync"
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
	// Every call of one case returns the same executor: in-process locks
	// are shared by everything that uses one executor value, like a
	// backend server. Each case has its own, so that the case that closes
	// its executor leaves the others alone (the others are never closed:
	// nothing of theirs outlives the test but timers).
	var mu sync.Mutex
	execs := map[string]*memory.Executor{}
	executortest.Run(t, func(t *testing.T) executor.Executor {
		parts := strings.SplitN(t.Name(), "/", 3)
		name := strings.Join(parts[:min(len(parts), 2)], "/")
		mu.Lock()
		defer mu.Unlock()
		e := execs[name]
		if e == nil {
			e = memory.New(memory.Options{})
			execs[name] = e
		}
		return e
	}, executortest.Options{})
}
