package cronlock_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/robfig/cron/v3"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/jobs"
	"github.com/lock4go/lock4go/jobs/cronlock"
)

func TestWrap_runsOnceWhileHeld(t *testing.T) {
	e := memory.New(memory.Options{})
	defer e.Close()
	var runners [2]*jobs.Runner
	var outcomes [5]atomic.Int64
	for i := range runners {
		tpl, err := lock4go.New(lock4go.Config{}, e)
		if err != nil {
			t.Fatal(err)
		}
		runners[i], _ = jobs.New(tpl, jobs.Config{Observer: jobs.ObserverFunc(func(_ context.Context, ev jobs.Event) {
			outcomes[ev.Outcome].Add(1)
		})})
	}
	var ran atomic.Int64
	var inner cron.Job
	inner = cron.FuncJob(func() {
		ran.Add(1)
		// The other instance's tick, while this one runs: skipped.
		cron.NewChain(cronlock.Wrap(runners[1], "sweep")).Then(cron.FuncJob(func() { ran.Add(100) })).Run()
	})
	cron.NewChain(cronlock.Wrap(runners[0], "sweep")).Then(inner).Run()
	if ran.Load() != 1 || outcomes[jobs.Ran].Load() != 1 || outcomes[jobs.Skipped].Load() != 1 {
		t.Fatalf("ran %d, outcomes ran %d skipped %d; want 1, 1, 1", ran.Load(), outcomes[jobs.Ran].Load(), outcomes[jobs.Skipped].Load())
	}
	var token int64
	cronlock.Func(runners[1], "sweep", func(ctx context.Context) error {
		token = lock4go.LockFrom(ctx, "sweep").Token()
		return nil
	}).Run()
	if token <= 0 {
		t.Fatalf("Func's context carries token %d", token)
	}
}
