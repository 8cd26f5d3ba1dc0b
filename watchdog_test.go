package lock4go_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

// Without WithExpire the watchdog renews every third of the lease, so the
// lock outlives its lease many times over.
func TestWatchdog_renews(t *testing.T) {
	bubble(t, func(t *testing.T) {
		mem := &countingExec{Executor: memory.New(memory.Options{})}
		tpl, _ := lock4go.New(lock4go.Config{Expire: 3 * time.Second}, mem)
		l, err := tpl.Lock(t.Context(), "k")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(10*time.Second + 500*time.Millisecond)
		synctest.Wait()
		select {
		case <-l.Done():
			t.Fatalf("lock ended while renewed: %v", l.Err())
		default:
		}
		other, _ := lock4go.New(lock4go.Config{}, mem)
		if _, err := other.TryLock(t.Context(), "k"); !errors.Is(err, lock4go.ErrNotAcquired) {
			t.Fatalf("another owner got the renewed lock: %v", err)
		}
		// One renewal per second (Expire/3), give or take the batching window.
		if got := mem.renews.Load(); got < 10 || got > 11 {
			t.Fatalf("%d renewals in 10.5s, want 10 or 11", got)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

// A renewal that finds the lock gone ends it as lost: Done closes, Err says
// ErrLockLost, and Do's context is cancelled with that cause.
func TestWatchdog_renewalFindsLockGone(t *testing.T) {
	bubble(t, func(t *testing.T) {
		lease := &fakeLease{token: 1, renewF: func(context.Context, time.Duration) error {
			return fmt.Errorf("fake: %w", executor.ErrLockNotHeld)
		}}
		f := &fakeExec{name: "fake", prio: 1, acquireF: func(context.Context, executor.Request) (executor.Lease, error) { return lease, nil }}
		tpl, _ := lock4go.New(lock4go.Config{Expire: 3 * time.Second}, f)
		start := time.Now()
		err := tpl.Do(t.Context(), "k", func(ctx context.Context) error {
			<-ctx.Done()
			if got := time.Since(start); got != time.Second {
				t.Errorf("ctx cancelled after %v, want at the first renewal (1s)", got)
			}
			if cause := context.Cause(ctx); !errors.Is(cause, lock4go.ErrLockLost) {
				t.Errorf("cause = %v, want ErrLockLost", cause)
			}
			return nil
		})
		if !errors.Is(err, lock4go.ErrLockLost) {
			t.Fatalf("Do = %v, want ErrLockLost (the work may not have been exclusive)", err)
		}
	})
}

// Renewals that keep failing end the lock before its lease ends by the
// local clock, and the backend copy is deleted by compare-and-delete.
func TestWatchdog_transientFailuresUntilLeaseEnd(t *testing.T) {
	bubble(t, func(t *testing.T) {
		lease := &fakeLease{token: 1, renewF: func(ctx context.Context, _ time.Duration) error {
			<-ctx.Done() // the backend hangs
			return fmt.Errorf("fake: %w: %w", executor.ErrBackend, ctx.Err())
		}}
		f := &fakeExec{name: "fake", prio: 1, acquireF: func(context.Context, executor.Request) (executor.Lease, error) { return lease, nil }}
		var mu sync.Mutex
		var events []lock4go.EventKind
		obs := lock4go.ObserverFunc(func(_ context.Context, e lock4go.Event) {
			mu.Lock()
			events = append(events, e.Kind)
			mu.Unlock()
		})
		tpl, _ := lock4go.New(lock4go.Config{Expire: 3 * time.Second, Observer: obs}, f)
		start := time.Now()
		l, err := tpl.Lock(t.Context(), "k")
		if err != nil {
			t.Fatal(err)
		}
		<-l.Done()
		lostAt := time.Since(start)
		if lostAt >= 3*time.Second || lostAt < 2*time.Second {
			t.Fatalf("lost after %v, want before the 3s lease ends (and not before 2s)", lostAt)
		}
		if !errors.Is(l.Err(), lock4go.ErrLockLost) {
			t.Fatalf("Err = %v", l.Err())
		}
		synctest.Wait()
		if lease.releases.Load() != 1 {
			t.Fatalf("compensating releases = %d, want 1", lease.releases.Load())
		}
		if err := l.Release(t.Context()); !errors.Is(err, lock4go.ErrLockNotHeld) || !errors.Is(err, lock4go.ErrLockLost) {
			t.Fatalf("Release after loss = %v, want ErrLockNotHeld and ErrLockLost", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if events[len(events)-1] != lock4go.EventLost {
			t.Fatalf("events = %v", events)
		}
	})
}

// A lock whose renewals are refused until its lease runs out is lost with
// the last refusal as the cause, so the holder learns why.
func TestWatchdog_lostNamesLastRenewalError(t *testing.T) {
	bubble(t, func(t *testing.T) {
		refused := errors.New("fake: NOPERM")
		lease := &fakeLease{token: 1, renewF: func(context.Context, time.Duration) error {
			return fmt.Errorf("fake: renew: %w: %w", executor.ErrBackend, refused)
		}}
		f := &fakeExec{name: "fake", prio: 1, acquireF: func(context.Context, executor.Request) (executor.Lease, error) { return lease, nil }}
		tpl, _ := lock4go.New(lock4go.Config{Expire: 3 * time.Second}, f)
		l, err := tpl.Lock(t.Context(), "k")
		if err != nil {
			t.Fatal(err)
		}
		<-l.Done()
		if err := l.Err(); !errors.Is(err, lock4go.ErrLockLost) || !errors.Is(err, lock4go.ErrBackend) || !errors.Is(err, refused) {
			t.Fatalf("Err = %v, want ErrLockLost with the last renewal's error", err)
		}
		synctest.Wait()
	})
}

// A fixed lease (WithExpire) is never renewed and ends by the local clock.
func TestWatchdog_fixedExpire(t *testing.T) {
	bubble(t, func(t *testing.T) {
		mem := &countingExec{Executor: memory.New(memory.Options{})}
		tpl, _ := lock4go.New(lock4go.Config{}, mem)
		start := time.Now()
		l, err := tpl.Lock(t.Context(), "k", lock4go.WithExpire(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		<-l.Done()
		if got := time.Since(start); got > 2*time.Second || got < 1900*time.Millisecond {
			t.Fatalf("fixed lease ended after %v, want just under 2s", got)
		}
		if !errors.Is(l.Err(), lock4go.ErrLockLost) {
			t.Fatalf("Err = %v, want ErrLockLost", l.Err())
		}
		if mem.renews.Load() != 0 {
			t.Fatalf("fixed lease renewed %d times", mem.renews.Load())
		}
		// Nobody holds it any more: the Template deleted its copy at once.
		synctest.Wait()
		other, _ := lock4go.New(lock4go.Config{}, mem)
		l2, err := other.TryLock(t.Context(), "k")
		if err != nil {
			t.Fatalf("key still held after the fixed lease: %v", err)
		}
		_ = l2.Release(t.Context())
	})
}

// A Lost channel closed by the executor ends the lock (one watcher per
// channel).
func TestTemplate_lostChannel(t *testing.T) {
	bubble(t, func(t *testing.T) {
		lost := make(chan struct{})
		f := &fakeExec{name: "fake", prio: 1, acquireF: func(context.Context, executor.Request) (executor.Lease, error) {
			return &fakeLease{token: 1, lost: lost}, nil
		}}
		tpl, _ := lock4go.New(lock4go.Config{}, f)
		var locks []*lock4go.Lock
		for i := range 3 {
			l, err := tpl.Lock(t.Context(), fmt.Sprint("k", i))
			if err != nil {
				t.Fatal(err)
			}
			locks = append(locks, l)
		}
		time.Sleep(time.Second)
		close(lost)
		for _, l := range locks {
			<-l.Done()
			if !errors.Is(l.Err(), lock4go.ErrLockLost) {
				t.Fatalf("Err = %v", l.Err())
			}
		}
	})
}

// batchExec is a fake executor that renews in batches, slowly, and records
// how many batches are in flight at once.
type batchExec struct {
	fakeExec
	mu       sync.Mutex
	inflight int
	maxIn    int
	batches  [][]int64
}

func (b *batchExec) RenewBatch(ctx context.Context, items []executor.RenewItem) []error {
	b.mu.Lock()
	b.inflight++
	b.maxIn = max(b.maxIn, b.inflight)
	var tokens []int64
	for _, it := range items {
		tokens = append(tokens, it.Lease.Token())
	}
	b.batches = append(b.batches, tokens)
	b.mu.Unlock()
	time.Sleep(800 * time.Millisecond) // a slow pipeline
	b.mu.Lock()
	b.inflight--
	b.mu.Unlock()
	return make([]error, len(items))
}

// Each executor has at most one renewal batch in flight; renewals that fall
// due meanwhile go out as the next batch.
func TestWatchdog_oneBatchInFlightPerExecutor(t *testing.T) {
	bubble(t, func(t *testing.T) {
		var next int64
		b := &batchExec{}
		b.fakeExec = fakeExec{name: "batch", prio: 1, acquireF: func(context.Context, executor.Request) (executor.Lease, error) {
			next++
			return &fakeLease{token: next}, nil
		}}
		tpl, _ := lock4go.New(lock4go.Config{Expire: 3 * time.Second}, b)
		var locks []*lock4go.Lock
		for i := range 3 {
			l, err := tpl.Lock(t.Context(), fmt.Sprint("k", i))
			if err != nil {
				t.Fatal(err)
			}
			locks = append(locks, l)
			time.Sleep(300 * time.Millisecond) // due at 1s, 1.3s, 1.6s
		}
		time.Sleep(2 * time.Second)
		for _, l := range locks {
			if err := l.Release(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.maxIn != 1 {
			t.Fatalf("%d renewal batches in flight at once, want 1", b.maxIn)
		}
		if len(b.batches) < 2 || len(b.batches[0]) != 1 || len(b.batches[1]) != 2 {
			t.Fatalf("batches = %v, want [1] then [2 3] (queued while the first was in flight)", b.batches)
		}
	})
}

// A Release after the lease ran out by the local clock reports the lock
// lost, even if the watchdog has not got to it yet.
func TestLock_Release_afterLocalLeaseEnd(t *testing.T) {
	bubble(t, func(t *testing.T) {
		tpl, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
		l, err := tpl.Lock(t.Context(), "k", lock4go.WithExpire(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second - time.Second/50) // the local lease end
		err = l.Release(t.Context())
		if !errors.Is(err, lock4go.ErrLockNotHeld) || !errors.Is(err, lock4go.ErrLockLost) {
			t.Fatalf("Release at the lease end = %v, want ErrLockNotHeld and ErrLockLost", err)
		}
	})
}
