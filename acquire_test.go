package lock4go_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

func busy(context.Context, executor.Request) (executor.Lease, error) {
	return nil, fmt.Errorf("fake: %w", executor.ErrNotAcquired)
}

// The loop retries at exactly the fixed interval until the acquire timeout
// (fake clock: synctest), and reports the attempt count.
func TestTemplate_Lock_fixedRetryInterval(t *testing.T) {
	bubble(t, func(t *testing.T) {
		f := &fakeExec{name: "fake", prio: 1, acquireF: busy}
		tpl, _ := lock4go.New(lock4go.Config{AcquireTimeout: 1050 * time.Millisecond, RetryInterval: 100 * time.Millisecond}, f)
		start := time.Now()
		_, err := tpl.Lock(t.Context(), "k")
		var aerr *lock4go.AcquireError
		if !errors.As(err, &aerr) || !errors.Is(err, lock4go.ErrNotAcquired) || errors.Is(err, lock4go.ErrBackend) {
			t.Fatalf("Lock = %v, want an AcquireError wrapping ErrNotAcquired", err)
		}
		times := f.attempts()
		if aerr.Attempts != 11 || len(times) != 11 {
			t.Fatalf("attempts = %d (executor saw %d), want 11", aerr.Attempts, len(times))
		}
		for i, at := range times {
			if got, want := at.Sub(start), time.Duration(i)*100*time.Millisecond; got != want {
				t.Fatalf("attempt %d at %v, want %v", i, got, want)
			}
		}
		if got := time.Since(start); got != 1050*time.Millisecond {
			t.Fatalf("gave up after %v, want the 1.05s timeout", got)
		}
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			t.Fatalf("the acquire timeout is not a context error of the caller: %v", err)
		}
	})
}

func TestTemplate_Lock_perCallOptions(t *testing.T) {
	bubble(t, func(t *testing.T) {
		f := &fakeExec{name: "fake", prio: 1, acquireF: busy}
		tpl, _ := lock4go.New(lock4go.Config{}, f)
		_, err := tpl.Lock(t.Context(), "k", lock4go.WithAcquireTimeout(600*time.Millisecond), lock4go.WithRetryInterval(250*time.Millisecond))
		var aerr *lock4go.AcquireError
		if !errors.As(err, &aerr) || aerr.Attempts != 3 || aerr.Waited != 600*time.Millisecond {
			t.Fatalf("Lock = %v (%+v), want 3 attempts (0, 250, 500ms) in 600ms", err, aerr)
		}
		// NoWait: one attempt, no waiting, like TryLock.
		_, err = tpl.Lock(t.Context(), "k", lock4go.NoWait())
		if !errors.As(err, &aerr) || aerr.Attempts != 1 || aerr.Waited != 0 {
			t.Fatalf("Lock with NoWait = %v, want one attempt", err)
		}
		if r := f.reqs[len(f.reqs)-1]; r.Wait {
			t.Fatal("single attempt asked the executor to wait")
		}
	})
}

func TestTemplate_Lock_contextCancelled(t *testing.T) {
	bubble(t, func(t *testing.T) {
		f := &fakeExec{name: "fake", prio: 1, acquireF: busy}
		tpl, _ := lock4go.New(lock4go.Config{}, f)
		cause := errors.New("client went away")
		ctx, cancel := context.WithCancelCause(t.Context())
		time.AfterFunc(250*time.Millisecond, func() { cancel(cause) })
		_, err := tpl.Lock(ctx, "k")
		var aerr *lock4go.AcquireError
		if !errors.As(err, &aerr) || !errors.Is(err, lock4go.ErrNotAcquired) || !errors.Is(err, cause) {
			t.Fatalf("Lock = %v, want ErrNotAcquired with the ctx cause", err)
		}
		if aerr.Attempts != 3 {
			t.Fatalf("attempts = %d, want 3 (0, 100, 200ms)", aerr.Attempts)
		}
	})
}

func TestTemplate_Lock_backendErrors(t *testing.T) {
	bubble(t, func(t *testing.T) {
		down := errors.New("connection refused")
		f := &fakeExec{name: "fake", prio: 1, acquireF: func(context.Context, executor.Request) (executor.Lease, error) {
			return nil, fmt.Errorf("fake: %w: %w", executor.ErrBackend, down)
		}}
		tpl, _ := lock4go.New(lock4go.Config{AcquireTimeout: 450 * time.Millisecond}, f)
		_, err := tpl.Lock(t.Context(), "k")
		var aerr *lock4go.AcquireError
		if !errors.As(err, &aerr) || !errors.Is(err, lock4go.ErrBackend) || !errors.Is(err, down) || errors.Is(err, lock4go.ErrNotAcquired) {
			t.Fatalf("Lock = %v, want ErrBackend with its cause", err)
		}
		if aerr.Attempts != 5 {
			t.Fatalf("attempts = %d, want 5 (retried within the timeout)", aerr.Attempts)
		}

		// A backend error that heals within the timeout is retried through.
		n := 0
		f.acquireF = func(context.Context, executor.Request) (executor.Lease, error) {
			if n++; n < 3 {
				return nil, fmt.Errorf("fake: %w", executor.ErrBackend)
			}
			return &fakeLease{token: 7}, nil
		}
		l, err := tpl.Lock(t.Context(), "k2")
		if err != nil {
			t.Fatalf("Lock after transient errors = %v", err)
		}
		if l.Attempts() != 3 || l.Token() != 7 {
			t.Fatalf("attempts, token = %d, %d", l.Attempts(), l.Token())
		}
		_ = l.Release(t.Context())
	})
}

// A lease that arrives after the caller's deadline is released, never
// reported as held.
func TestTemplate_Lock_lateReplyReleased(t *testing.T) {
	bubble(t, func(t *testing.T) {
		lease := &fakeLease{token: 1}
		f := &fakeExec{name: "fake", prio: 1, acquireF: func(ctx context.Context, _ executor.Request) (executor.Lease, error) {
			<-ctx.Done() // the reply comes back only after the deadline
			return lease, nil
		}}
		tpl, _ := lock4go.New(lock4go.Config{AcquireTimeout: time.Second}, f)
		if l, err := tpl.Lock(t.Context(), "k"); err == nil || l != nil {
			t.Fatalf("Lock = %v, %v; want an error", l, err)
		}
		if lease.releases.Load() != 1 {
			t.Fatalf("late lease released %d times, want 1", lease.releases.Load())
		}
	})
}

// Executors that report releases wake the waiter at once, not after the
// retry interval.
func TestTemplate_Lock_earlyWakeUp(t *testing.T) {
	bubble(t, func(t *testing.T) {
		mem := polling{memory.New(memory.Options{})}
		holderTpl, _ := lock4go.New(lock4go.Config{}, mem)
		waiterTpl, _ := lock4go.New(lock4go.Config{RetryInterval: 10 * time.Second, AcquireTimeout: time.Minute}, mem)
		held, err := holderTpl.Lock(t.Context(), "k")
		if err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(1500*time.Millisecond, func() { _ = held.Release(context.Background()) })
		start := time.Now()
		l, err := waiterTpl.Lock(t.Context(), "k")
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 1500*time.Millisecond {
			t.Fatalf("waiter acquired after %v, want at the release (1.5s)", got)
		}
		if l.Attempts() != 3 {
			t.Fatalf("attempts = %d, want 3 (try, subscribe and retry, woken)", l.Attempts())
		}
		_ = l.Release(t.Context())
	})
}

// Goroutines of one process waiting for one key share one backend wait.
func TestTemplate_Lock_localQueueBoundsBackendLoad(t *testing.T) {
	mem := &countingExec{Executor: memory.New(memory.Options{})}
	tpl, _ := lock4go.New(lock4go.Config{AcquireTimeout: 30 * time.Second}, mem)
	const n = 64
	var wg sync.WaitGroup
	var inside, maxInside int
	var mu sync.Mutex
	for range n {
		wg.Go(func() {
			err := tpl.Do(t.Context(), "k", func(context.Context) error {
				mu.Lock()
				inside++
				maxInside = max(maxInside, inside)
				mu.Unlock()
				time.Sleep(100 * time.Microsecond)
				mu.Lock()
				inside--
				mu.Unlock()
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if maxInside != 1 {
		t.Fatalf("%d holders at once", maxInside)
	}
	if got := mem.acquires.Load(); got != n {
		t.Fatalf("%d backend acquire attempts for %d acquisitions, want exactly one each", got, n)
	}
}

func TestTemplate_TryLock_heldLocally(t *testing.T) {
	mem := &countingExec{Executor: memory.New(memory.Options{})}
	tpl, _ := lock4go.New(lock4go.Config{}, mem)
	l, err := tpl.Lock(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(t.Context())
	if _, err := tpl.TryLock(t.Context(), "k"); !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("TryLock = %v", err)
	}
	// Another template (another process) asks the backend, which says busy.
	other, _ := lock4go.New(lock4go.Config{}, mem)
	if _, err := other.TryLock(t.Context(), "k"); !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("TryLock from another template = %v", err)
	}
	if got := mem.acquires.Load(); got != 2 {
		t.Fatalf("backend attempts = %d, want 2", got)
	}
}

// Every attempt carries a fresh owner value, so that a late write or a
// compensating delete of an earlier attempt can never touch this one.
func TestTemplate_Lock_freshOwnerPerAttempt(t *testing.T) {
	bubble(t, func(t *testing.T) {
		f := &fakeExec{name: "fake", prio: 1, acquireF: busy}
		tpl, _ := lock4go.New(lock4go.Config{AcquireTimeout: 450 * time.Millisecond}, f)
		_, _ = tpl.Lock(t.Context(), "k")
		seen := map[string]bool{}
		for _, r := range f.reqs {
			if len(r.Owner) != 32 || seen[r.Owner] {
				t.Fatalf("owner %q reused or malformed", r.Owner)
			}
			seen[r.Owner] = true
		}
		if len(seen) != 5 {
			t.Fatalf("%d owners for 5 attempts", len(seen))
		}
	})
}
