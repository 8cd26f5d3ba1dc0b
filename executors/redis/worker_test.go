package redis_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executors/redis"
)

// workerExecutor returns an executor whose client does not bound calls by
// context deadlines, so that calls with a context that can end are handed
// off to workers, and such a context.
func workerExecutor(t *testing.T) (*redis.Executor, context.Context) {
	e := newExecutor(t, newClient(t, server(t).Addr()), redis.Options{})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return e, ctx
}

func TestExecutor_run_reusesWorker(t *testing.T) {
	e, ctx := workerExecutor(t)
	for i := range 3 {
		if err, abandoned := redis.Run(e, ctx, func(context.Context) error { return nil }); err != nil || abandoned {
			t.Fatalf("call %d = %v, abandoned %v", i, err, abandoned)
		}
		// A worker parks before it hands its result over.
		if n := redis.IdleWorkers(e); n != 1 {
			t.Fatalf("after call %d: %d parked workers, want 1 (reused)", i, n)
		}
	}
}

func TestExecutor_run_concurrentCalls(t *testing.T) {
	e, ctx := workerExecutor(t)
	n := redis.MaxIdleWorkers + 4
	var started, done sync.WaitGroup
	release := make(chan struct{})
	started.Add(n)
	for range n {
		done.Go(func() {
			err, _ := redis.Run(e, ctx, func(context.Context) error {
				started.Done()
				<-release
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	started.Wait() // every call runs at once: one worker each
	close(release)
	done.Wait()
	if got := redis.IdleWorkers(e); got != redis.MaxIdleWorkers {
		t.Fatalf("%d parked workers after %d concurrent calls, want %d", got, n, redis.MaxIdleWorkers)
	}
}

func TestExecutor_run_abandoned(t *testing.T) {
	e, parent := workerExecutor(t)
	ctx, cancel := context.WithCancel(parent)
	release, finished := make(chan struct{}), make(chan struct{})
	go func() {
		<-release
		cancel()
	}()
	err, abandoned := redis.Run(e, ctx, func(context.Context) error {
		close(release)
		<-finished // still running when ctx ends
		return nil
	})
	if !abandoned || !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, abandoned %v; want Canceled, abandoned", err, abandoned)
	}
	if n := redis.IdleWorkers(e); n != 0 {
		t.Fatalf("%d parked workers while the abandoned call runs, want 0", n)
	}
	close(finished)
	if !eventually(5*time.Second, func() bool { return redis.IdleWorkers(e) == 1 }) {
		t.Fatal("the worker of the abandoned call was not parked again")
	}
}

func TestExecutor_run_afterClose(t *testing.T) {
	e, parent := workerExecutor(t)
	if err, _ := redis.Run(e, parent, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if n := redis.IdleWorkers(e); n != 0 {
		t.Fatalf("%d parked workers after Close, want 0", n)
	}
	// After Close calls run in the caller's goroutine: an ended context
	// cannot abandon them.
	ctx, cancel := context.WithCancel(parent)
	cancel()
	ran := false
	err, abandoned := redis.Run(e, ctx, func(context.Context) error { ran = true; return nil })
	if err != nil || abandoned || !ran {
		t.Fatalf("Run after Close = %v, abandoned %v, ran %v; want a call in the caller's goroutine", err, abandoned, ran)
	}
}
