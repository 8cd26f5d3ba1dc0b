package jobs_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/jobs"
)

// TestExecutor_option: a job run with jobs.Executor("b") takes its lock on
// the executor b, not on the Runner's default one.
func TestExecutor_option(t *testing.T) {
	a, b := memory.New(memory.Options{Name: "a"}), memory.New(memory.Options{Name: "b"})
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	tpl, err := lock4go.New(lock4go.Config{Primary: "a"}, a, b)
	if err != nil {
		t.Fatal(err)
	}
	r, err := jobs.New(tpl, jobs.Config{})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Run(t.Context(), "report", func(ctx context.Context) error {
		if _, err := b.Inspect(ctx, "report"); err != nil {
			t.Errorf("the job's lock on b: %v", err)
		}
		if _, err := a.Inspect(ctx, "report"); !errors.Is(err, executor.ErrLockNotHeld) {
			t.Errorf("the job's lock on a: Inspect = %v, want ErrLockNotHeld", err)
		}
		return nil
	}, jobs.Executor("b"))
	if res.Outcome != jobs.Ran {
		t.Fatalf("Run = %v (%v), want ran", res.Outcome, res.Err)
	}
}
