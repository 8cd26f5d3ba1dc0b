package jobstest_test

import (
	"testing"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/jobs/jobstest"
)

// An executor's tests run the jobs suite through a Template over it, a
// fresh one per case.
func ExampleRun() {
	_ = func(t *testing.T) { // func TestJobs(t *testing.T)
		jobstest.Run(t, func(t *testing.T) *lock4go.Template {
			e := memory.New(memory.Options{})
			t.Cleanup(func() { _ = e.Close() })
			tpl, err := lock4go.New(lock4go.Config{}, e)
			if err != nil {
				t.Fatal(err)
			}
			return tpl
		}, jobstest.Options{})
	}
}
