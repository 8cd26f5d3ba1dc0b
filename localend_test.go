package lock4go_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

// selfExec is an executor whose backend renews leases by itself and
// tells their local end (executor.LocalEnder), set by the test.
type selfExec struct{ fakeExec }

func (e *selfExec) Capabilities() executor.Capabilities {
	return executor.Capabilities{SelfRenewing: true}
}

// endedLease is a fakeLease with a local end the test moves, never
// reporting a loss by itself.
type endedLease struct {
	fakeLease
	end atomic.Pointer[time.Time]
}

func (l *endedLease) LocalEnd() time.Time { return *l.end.Load() }

func (l *endedLease) setEnd(t time.Time) { l.end.Store(&t) }

// A lease the backend renews ends at its local end: while the executor
// confirms it the lock is held, and once it stops, Err answers lost from
// the end on, and Done closes by then, though the executor never reports
// the loss.
func TestLock_selfRenewedLeaseEndsAtLocalEnd(t *testing.T) {
	bubble(t, func(t *testing.T) {
		lease := &endedLease{fakeLease: fakeLease{token: 1}}
		lease.setEnd(time.Now().Add(2 * time.Second))
		f := &selfExec{fakeExec{name: "self", acquireF: func(context.Context, executor.Request) (executor.Lease, error) { return lease, nil }}}
		tpl, _ := lock4go.New(lock4go.Config{Expire: 3 * time.Second}, f)
		l, err := tpl.Lock(t.Context(), "k")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		lease.setEnd(time.Now().Add(2 * time.Second)) // a keep-alive confirmed
		time.Sleep(1500 * time.Millisecond)
		if err := l.Err(); err != nil {
			t.Fatalf("Err = %v before the local end", err)
		}
		time.Sleep(time.Second) // past the end: 3s
		if err := l.Err(); !errors.Is(err, lock4go.ErrLockLost) {
			t.Fatalf("Err past the local end = %v, want ErrLockLost", err)
		}
		select {
		case <-l.Done():
		default:
			t.Fatal("Done not closed past the local end")
		}
		synctest.Wait()
		if n := lease.releases.Load(); n != 1 {
			t.Fatalf("lease released %d times after its local end, want 1 (the backend may still hold it)", n)
		}
		if n := lease.renews.Load(); n != 0 {
			t.Fatalf("a lease the backend renews was renewed %d times by the Template", n)
		}
	})
}

// Done closes at the local end with nobody asking Err: the watchdog's
// timer.
func TestLock_selfRenewedLeaseDoneAtLocalEnd(t *testing.T) {
	bubble(t, func(t *testing.T) {
		lease := &endedLease{fakeLease: fakeLease{token: 1}}
		start := time.Now()
		lease.setEnd(start.Add(2 * time.Second))
		f := &selfExec{fakeExec{name: "self", acquireF: func(context.Context, executor.Request) (executor.Lease, error) { return lease, nil }}}
		tpl, _ := lock4go.New(lock4go.Config{}, f)
		err := tpl.Do(t.Context(), "k", func(ctx context.Context) error {
			<-ctx.Done()
			if got := time.Since(start); got != 2*time.Second {
				t.Errorf("ctx done after %v, want at the local end (2s)", got)
			}
			return nil
		})
		if !errors.Is(err, lock4go.ErrLockLost) {
			t.Fatalf("Do = %v, want ErrLockLost", err)
		}
	})
}

// The loss reported by the executor names its cause (executor.LostCauser).
func TestLock_lossNamesExecutorCause(t *testing.T) {
	bubble(t, func(t *testing.T) {
		lease := &causeLease{fakeLease: fakeLease{token: 1, lost: make(chan struct{})}}
		f := &fakeExec{name: "fake", acquireF: func(context.Context, executor.Request) (executor.Lease, error) { return lease, nil }}
		tpl, _ := lock4go.New(lock4go.Config{}, f)
		l, err := tpl.Lock(t.Context(), "k")
		if err != nil {
			t.Fatal(err)
		}
		close(lease.lost)
		<-l.Done()
		if err := l.Err(); !errors.Is(err, lock4go.ErrLockLost) || !errors.Is(err, errDeletedBehind) {
			t.Fatalf("Err = %v, want ErrLockLost naming the executor's cause", err)
		}
	})
}

var errDeletedBehind = errors.New("fake: lock deleted behind its holder")

type causeLease struct{ fakeLease }

func (l *causeLease) LostCause() error { return errDeletedBehind }

// BenchmarkLockContext_Err is what asking fn's context costs while the lock
// is held: a clock read and a few atomic loads.
func BenchmarkLockContext_Err(b *testing.B) {
	tpl, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	l, err := tpl.Lock(b.Context(), "k")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Release(context.Background())
	ctx, cancel := l.Context(b.Context())
	defer cancel()
	b.Run("lock-context", func(b *testing.B) {
		for b.Loop() {
			if ctx.Err() != nil {
				b.Fatal("lost")
			}
		}
	})
	b.Run("lock-err", func(b *testing.B) {
		for b.Loop() {
			if l.Err() != nil {
				b.Fatal("lost")
			}
		}
	})
	plain, stop := context.WithCancelCause(b.Context())
	defer stop(nil)
	b.Run("context-withcancel", func(b *testing.B) {
		for b.Loop() {
			if plain.Err() != nil {
				b.Fatal("cancelled")
			}
		}
	})
}

// A lease granted past its local end (its session's last confirmation is
// older than the lease: the executor's own timer has not run yet) is never
// handed out: Lock fails and releases it.
func TestLock_neverHandsOutPastLocalEnd(t *testing.T) {
	bubble(t, func(t *testing.T) {
		lease := &endedLease{fakeLease: fakeLease{token: 1}}
		lease.setEnd(time.Now().Add(-time.Millisecond))
		f := &selfExec{fakeExec{name: "self", acquireF: func(context.Context, executor.Request) (executor.Lease, error) { return lease, nil }}}
		tpl, _ := lock4go.New(lock4go.Config{}, f)
		l, err := tpl.TryLock(t.Context(), "k")
		if err == nil {
			t.Fatalf("Lock handed out a lock past its local end (Err %v)", l.Err())
		}
		if !errors.Is(err, lock4go.ErrBackend) {
			t.Fatalf("Lock = %v, want ErrBackend", err)
		}
		synctest.Wait()
		if n := lease.releases.Load(); n != 1 {
			t.Fatalf("lease released %d times, want 1", n)
		}
	})
}
