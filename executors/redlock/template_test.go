package redlock_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/redlock"
	"github.com/lock4go/lock4go/internal/testwait"
)

// TestTemplate_exclusion runs 3 Templates (one executor each, as 3
// processes would) with 4 goroutines each over the same masters: never two
// holders at once, tokens increasing.
func TestTemplate_exclusion(t *testing.T) {
	a := addrs(t)
	k := key(t)
	var inside, maxInside atomic.Int64
	var mu sync.Mutex
	var last int64
	var wg sync.WaitGroup
	for range 3 {
		tpl, err := lock4go.New(lock4go.Config{Logger: testLogger(t)}, newExecutor(t, a, redlock.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			wg.Go(func() {
				for range 5 {
					err := tpl.Do(t.Context(), k, func(ctx context.Context) error {
						n := inside.Add(1)
						defer inside.Add(-1)
						for m := maxInside.Load(); n > m && !maxInside.CompareAndSwap(m, n); m = maxInside.Load() {
						}
						tok := lock4go.LockFrom(ctx, k).Token()
						mu.Lock()
						defer mu.Unlock()
						if tok <= last {
							return errors.New("token not above the previous holder's")
						}
						last = tok
						return nil
					}, lock4go.WithAcquireTimeout(30*time.Second))
					if err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	if m := maxInside.Load(); m != 1 {
		t.Fatalf("%d holders at once", m)
	}
}

// TestTemplate_lostOnMajority deletes a held lock on one master: the lock
// survives (a majority still holds it, and the master gets it back after a
// renewal); then on two masters at once: the Template's next renewal finds
// fewer than a majority, so the lock's Done closes with ErrLockLost, and
// the master that still held it is released.
func TestTemplate_lostOnMajority(t *testing.T) {
	a := addrs(t)
	tpl, err := lock4go.New(lock4go.Config{Logger: testLogger(t), Expire: 600 * time.Millisecond}, newExecutor(t, a, redlock.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	k := key(t)
	l, err := tpl.Lock(t.Context(), k, lock4go.WithAcquireTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Release(context.Background()) }()
	if err := newClient(t, a[0]).Del(t.Context(), k).Err(); err != nil {
		t.Fatal(err)
	}
	// A renewal (every 200ms) succeeds on the other two and then asks
	// master 0 for the lock again: seeing it back there means the lock
	// went through a renewal with one master gone.
	testwait.For(t, 10*time.Second, "master 0 to hold the lock again", func() bool {
		return holders(t, a[:1], k)[0] != ""
	})
	select {
	case <-l.Done():
		t.Fatalf("lost with a majority still holding it: %v", l.Err())
	default:
	}
	var wg sync.WaitGroup
	for _, addr := range a[:2] {
		c := newClient(t, addr)
		wg.Go(func() {
			if err := c.Del(t.Context(), k).Err(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	select {
	case <-l.Done():
		if !errors.Is(l.Err(), lock4go.ErrLockLost) {
			t.Fatalf("Err = %v, want ErrLockLost", l.Err())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the lock was not reported lost after losing two of three masters")
	}
	awaitFree(t, a, k)
}
