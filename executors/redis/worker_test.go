package redis_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testwait"
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
	if !testwait.Until(5*time.Second, func() bool { return redis.IdleWorkers(e) == 1 }) {
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

// TestFault_cancelledWithDeadline cancels, long before its deadline, an
// acquisition over a client that does not bound calls by context deadlines
// and waits without a read timeout, while the server is paused: the call
// runs in a worker, so Acquire returns at the cancellation with a give-up,
// and the acquisition is voided once the server resumes. The
// Template's attempts always carry a deadline.
func TestFault_cancelledWithDeadline(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	noTimeout := func(o *goredis.Options) { o.ReadTimeout = -1 }
	e, err := redis.New(newClient(t, s.Addr(), noTimeout), redis.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	if l, err := e.Acquire(t.Context(), req(uniq(t, "warm:"), time.Minute)); err == nil {
		_ = l.Release(t.Context())
	}
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Resume() })
	r := req(uniq(t, "cancelled:"), time.Minute)
	cause := errors.New("caller went away")
	deadline, stop := context.WithTimeout(t.Context(), time.Minute)
	defer stop()
	ctx, cancel := context.WithCancelCause(deadline)
	timer := time.AfterFunc(100*time.Millisecond, func() { cancel(cause) })
	defer timer.Stop()
	done := make(chan error, 1)
	go func() {
		_, err := e.Acquire(ctx, r)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, executor.ErrNotAcquired) || !errors.Is(err, cause) || errors.Is(err, executor.ErrBackend) {
			t.Fatalf("cancelled Acquire on a paused server = %v, want ErrNotAcquired and the cause, not ErrBackend", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled Acquire on a paused server did not return")
	}

	if err := s.Resume(); err != nil {
		t.Fatal(err)
	}
	voidedOnResume(t, c, e, r)
}

// voidedOnResume checks that the void of r, an acquisition through e
// cancelled on a paused server, reaches the server once it resumed, and
// that no lock is left once e closed.
func voidedOnResume(t *testing.T, c *goredis.Client, e *redis.Executor, r executor.Request) {
	t.Helper()
	if !testwait.Until(10*time.Second, func() bool { return c.Exists(t.Context(), redis.VoidKey(r.Key, r.Owner)).Val() == 1 }) {
		t.Fatal("the cancelled acquisition was not voided")
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if c.Exists(t.Context(), r.Key).Val() != 0 {
		t.Fatal("lock left by the cancelled acquisition")
	}
}
