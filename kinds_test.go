package lock4go_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
)

// twoProcesses returns two Templates over one memory executor.
func twoProcesses(t *testing.T) (*memory.Executor, *lock4go.Template, *lock4go.Template) {
	t.Helper()
	mem := memory.New(memory.Options{})
	a, err := lock4go.New(lock4go.Config{AcquireTimeout: 10 * time.Second}, mem)
	if err != nil {
		t.Fatal(err)
	}
	b, err := lock4go.New(lock4go.Config{AcquireTimeout: 10 * time.Second}, mem)
	if err != nil {
		t.Fatal(err)
	}
	return mem, a, b
}

func mustLock(t *testing.T, tpl *lock4go.Template, key string, opts ...lock4go.LockOption) *lock4go.Lock {
	t.Helper()
	l, err := tpl.Lock(t.Context(), key, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func wantBusy(t *testing.T, tpl *lock4go.Template, key string, opts ...lock4go.LockOption) {
	t.Helper()
	if l, err := tpl.TryLock(t.Context(), key, opts...); !errors.Is(err, lock4go.ErrNotAcquired) {
		if l != nil {
			l.Release(t.Context())
		}
		t.Fatalf("TryLock(%q) = %v, want ErrNotAcquired", key, err)
	}
}

func TestShared_readersShareWritersExclude(t *testing.T) {
	_, a, b := twoProcesses(t)
	ctx := t.Context()
	r1 := mustLock(t, a, "doc", lock4go.Shared())
	r2 := mustLock(t, a, "doc", lock4go.Shared()) // same process, no local turn
	r3 := mustLock(t, b, "doc", lock4go.Shared())
	if r1.Token() == r2.Token() || r2.Token() == r3.Token() {
		t.Fatalf("readers share a token: %d %d %d", r1.Token(), r2.Token(), r3.Token())
	}
	wantBusy(t, b, "doc")
	wantBusy(t, a, "doc")
	h, err := a.Inspect(ctx, "doc")
	if err != nil || h.Kind != lock4go.KindRead || len(h.Holders) != 3 {
		t.Fatalf("Inspect = %+v, %v; want 3 shared holders", h, err)
	}
	kinds := map[lock4go.Kind]int{}
	for _, hl := range a.Snapshot().Held {
		kinds[hl.Kind]++
	}
	if kinds[lock4go.KindRead] != 2 {
		t.Fatalf("Snapshot kinds = %v, want 2 read", kinds)
	}
	for _, l := range []*lock4go.Lock{r1, r2, r3} {
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	w := mustLock(t, b, "doc")
	wantBusy(t, a, "doc", lock4go.Shared())
	w.Release(ctx)
	if a.HeldLocks() != 0 || len(a.Snapshot().Held) != 0 {
		t.Fatalf("held after release: %d, %v", a.HeldLocks(), a.Snapshot().Held)
	}
}

// Once a writer waits, later readers wait behind it.
func TestShared_writerPreference(t *testing.T) {
	mem, a, b := twoProcesses(t)
	ctx := t.Context()
	r1 := mustLock(t, a, "doc", lock4go.Shared())
	writer := make(chan *lock4go.Lock, 1)
	go func() {
		l, err := b.Lock(ctx, "doc")
		if err != nil {
			t.Error(err)
		}
		writer <- l
	}()
	awaitWaiters(t, mem, "doc", 1)
	wantBusy(t, a, "doc", lock4go.Shared())
	reader := make(chan *lock4go.Lock, 1)
	go func() {
		l, err := a.Lock(ctx, "doc", lock4go.Shared())
		if err != nil {
			t.Error(err)
		}
		reader <- l
	}()
	awaitWaiters(t, mem, "doc", 2)
	r1.Release(ctx)
	w := <-writer
	select {
	case <-reader:
		t.Fatal("a later reader got in with the writer")
	default:
	}
	w.Release(ctx)
	(<-reader).Release(ctx)
}

// awaitWaiters waits until key has n waiters (the memory executor reports
// them through Inspect; there is no event to wait on).
func awaitWaiters(t *testing.T, mem *memory.Executor, key string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		h, err := mem.Inspect(t.Context(), key)
		if err == nil && h.Waiters == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q: waiters = %d (%v), want %d", key, h.Waiters, err, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestShared_reentry(t *testing.T) {
	_, a, _ := twoProcesses(t)
	ctx := t.Context()
	err := a.Do(ctx, "doc", func(ctx context.Context) error {
		// A read inside the write lock re-enters it.
		r, err := a.TryLock(ctx, "doc", lock4go.Shared())
		if err != nil {
			return err
		}
		defer r.Release(ctx)
		if r.Token() != lock4go.LockFrom(ctx, "doc").Token() {
			t.Error("read inside write is not the write lock")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = a.Do(ctx, "doc", func(ctx context.Context) error {
		if _, err := a.Lock(ctx, "doc"); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("upgrade = %v, want ErrInvalidConfig", err)
		}
		if _, err := a.Lock(ctx, "doc", lock4go.WithPermits(2)); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("permit inside a read lock = %v, want ErrInvalidConfig", err)
		}
		r, err := a.Lock(ctx, "doc", lock4go.Shared())
		if err != nil {
			return err
		}
		return r.Release(ctx)
	}, lock4go.Shared())
	if err != nil {
		t.Fatal(err)
	}
	if a.HeldLocks() != 0 {
		t.Fatalf("HeldLocks = %d", a.HeldLocks())
	}
}

func TestPermits(t *testing.T) {
	mem, a, b := twoProcesses(t)
	ctx := t.Context()
	three := lock4go.WithPermits(3)
	var locks []*lock4go.Lock
	for _, tpl := range []*lock4go.Template{a, a, b} {
		locks = append(locks, mustLock(t, tpl, "pool", three))
	}
	for i := 1; i < len(locks); i++ {
		if locks[i].Token() <= locks[i-1].Token() {
			t.Fatalf("tokens not increasing: %d then %d", locks[i-1].Token(), locks[i].Token())
		}
	}
	wantBusy(t, a, "pool", three)
	wantBusy(t, b, "pool", three)
	for _, bad := range [][]lock4go.LockOption{{lock4go.WithPermits(2)}, {}, {lock4go.Shared()}} {
		if _, err := b.TryLock(ctx, "pool", bad...); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("TryLock(%v) of a 3-permit semaphore = %v, want ErrInvalidConfig", bad, err)
		}
	}

	// Each permit has its own lost signal.
	h, err := mem.Inspect(ctx, "pool")
	if err != nil || h.Kind != lock4go.KindPermits || h.Permits != 3 || len(h.Holders) != 3 || h.Holders[2].Token != locks[2].Token() {
		t.Fatalf("Inspect = %+v, %v; want 3 permits of 3, oldest first", h, err)
	}
	if err := mem.ForceRelease(ctx, "pool", h.Holders[2]); err != nil {
		t.Fatal(err)
	}
	<-locks[2].Done()
	if !errors.Is(locks[2].Err(), lock4go.ErrLockLost) || locks[0].Err() != nil || locks[1].Err() != nil {
		t.Fatalf("Err = %v, %v, %v; want only the last lost", locks[0].Err(), locks[1].Err(), locks[2].Err())
	}
	fourth := mustLock(t, b, "pool", three)
	for _, l := range append(locks[:2], fourth) {
		l.Release(ctx)
	}
	locks[2].Release(ctx)

	// The key is free again: any kind may use it.
	mustLock(t, a, "pool").Release(ctx)
}

// Never more than n holders inside, with many goroutines of two processes.
func TestPermits_neverMoreThanN(t *testing.T) {
	_, a, b := twoProcesses(t)
	const n = 3
	var mu sync.Mutex
	inside, peak := 0, 0
	var wg sync.WaitGroup
	for i := range 24 {
		tpl := a
		if i%2 == 1 {
			tpl = b
		}
		wg.Go(func() {
			for range 10 {
				err := tpl.Do(t.Context(), "pool", func(context.Context) error {
					mu.Lock()
					inside++
					peak = max(peak, inside)
					mu.Unlock()
					time.Sleep(50 * time.Microsecond)
					mu.Lock()
					inside--
					mu.Unlock()
					return nil
				}, lock4go.WithPermits(n))
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if peak > n {
		t.Fatalf("%d holders at once, want at most %d", peak, n)
	}
}

func TestKinds_badOptions(t *testing.T) {
	tpl, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}), &fakeExec{name: "plain", prio: 1000})
	ctx := t.Context()
	for name, opts := range map[string][]lock4go.LockOption{
		"negative permits":   {lock4go.WithPermits(-1)},
		"shared and permits": {lock4go.Shared(), lock4go.WithPermits(2)},
		"no read locks":      {lock4go.Shared(), lock4go.WithExecutor("plain")},
		"no semaphores":      {lock4go.WithPermits(2), lock4go.WithExecutor("plain")},
	} {
		if _, err := tpl.Lock(ctx, "k", opts...); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("%s: Lock = %v, want ErrInvalidConfig", name, err)
		}
	}
	if tpl.HeldLocks() != 0 {
		t.Fatal("a refused call holds a lock")
	}
}
