package lock4go_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

// remote presents the memory executor as one with round trips, so that
// LockAll takes its path for network backends (all keys tried at once).
type remote struct{ *memory.Executor }

func (r remote) Capabilities() executor.Capabilities {
	c := r.Executor.Capabilities()
	c.InProcess = false
	return c
}

// lockAllTemplates returns two Templates over one memory executor: two
// processes sharing a backend, the second one for the competitor.
func lockAllTemplates(t *testing.T, inProcess bool) (*lock4go.Template, *lock4go.Template) {
	t.Helper()
	mem := memory.New(memory.Options{})
	var e executor.Executor = mem
	if !inProcess {
		e = remote{mem}
	}
	a, err := lock4go.New(lock4go.Config{AcquireTimeout: 2 * time.Second, RetryInterval: 5 * time.Millisecond, Observer: &observed{}}, e)
	if err != nil {
		t.Fatal(err)
	}
	b, err := lock4go.New(lock4go.Config{AcquireTimeout: 2 * time.Second, RetryInterval: 5 * time.Millisecond}, e)
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

func forBoth(t *testing.T, f func(t *testing.T, a, b *lock4go.Template, inProcess bool)) {
	for _, inProcess := range []bool{true, false} {
		t.Run(fmt.Sprintf("inProcess=%v", inProcess), func(t *testing.T) {
			a, b := lockAllTemplates(t, inProcess)
			f(t, a, b, inProcess)
		})
	}
}

func TestLockAll_holdsAllKeys(t *testing.T) {
	forBoth(t, func(t *testing.T, a, b *lock4go.Template, inProcess bool) {
		ctx := t.Context()
		l, err := a.LockAll(ctx, []string{"k2", "k1", "k3", "k1"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := l.Keys(), []string{"k1", "k2", "k3"}; !slices.Equal(got, want) {
			t.Fatalf("Keys = %v, want %v", got, want)
		}
		for _, k := range l.Keys() {
			if l.TokenOf(k) <= 0 {
				t.Errorf("TokenOf(%q) = %d", k, l.TokenOf(k))
			}
			if _, err := b.TryLock(ctx, k); !errors.Is(err, lock4go.ErrNotAcquired) {
				t.Errorf("TryLock(%q) while LockAll holds it = %v, want ErrNotAcquired", k, err)
			}
		}
		if l.TokenOf("other") != 0 || l.Key() != "k1" || l.Token() != l.TokenOf("k1") {
			t.Errorf("TokenOf(other), Key, Token = %d, %q, %d", l.TokenOf("other"), l.Key(), l.Token())
		}
		if a.HeldLocks() != 3 {
			t.Errorf("HeldLocks = %d, want 3", a.HeldLocks())
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		<-l.Done()
		if !errors.Is(l.Err(), lock4go.ErrLockNotHeld) || !errors.Is(l.Release(ctx), lock4go.ErrLockNotHeld) {
			t.Errorf("after release: Err = %v", l.Err())
		}
		for _, k := range []string{"k1", "k2", "k3"} {
			m, err := b.TryLock(ctx, k)
			if err != nil {
				t.Fatalf("TryLock(%q) after release = %v", k, err)
			}
			m.Release(ctx)
		}
	})
}

func TestLockAll_badInput(t *testing.T) {
	a, _ := lockAllTemplates(t, true)
	ctx := t.Context()
	for _, keys := range [][]string{nil, {}, {"ok", ""}, {"ok", "nul\x00"}} {
		if _, err := a.LockAll(ctx, keys); !errors.Is(err, lock4go.ErrInvalidKey) {
			t.Errorf("LockAll(%q) = %v, want ErrInvalidKey", keys, err)
		}
	}
	if _, err := a.LockAll(ctx, []string{"a", "b"}, lock4go.WithExpire(-time.Second)); !errors.Is(err, lock4go.ErrInvalidConfig) {
		t.Errorf("negative expire = %v, want ErrInvalidConfig", err)
	}
	if _, err := a.LockAll(ctx, []string{"a", "b"}, lock4go.WithExecutor("nope")); !errors.Is(err, lock4go.ErrUnknownExecutor) {
		t.Errorf("unknown executor = %v, want ErrUnknownExecutor", err)
	}
	if err := a.DoAll(ctx, []string{"a"}, nil); !errors.Is(err, lock4go.ErrInvalidConfig) {
		t.Errorf("DoAll(nil fn) = %v, want ErrInvalidConfig", err)
	}
	if a.HeldLocks() != 0 {
		t.Errorf("HeldLocks = %d after refused calls", a.HeldLocks())
	}
}

// A busy key fails the whole call within the acquire timeout and leaves
// none of the other keys held.
func TestLockAll_busyKeyReleasesTheRest(t *testing.T) {
	forBoth(t, func(t *testing.T, a, b *lock4go.Template, inProcess bool) {
		ctx := t.Context()
		busy, err := b.Lock(ctx, "m")
		if err != nil {
			t.Fatal(err)
		}
		defer busy.Release(ctx)
		_, err = a.LockAll(ctx, []string{"z", "m", "a"}, lock4go.WithAcquireTimeout(30*time.Millisecond))
		var aerr *lock4go.AcquireError
		if !errors.Is(err, lock4go.ErrNotAcquired) || !errors.As(err, &aerr) || aerr.Key != "m" {
			t.Fatalf("LockAll with a busy key = %v, want ErrNotAcquired for m", err)
		}
		if a.HeldLocks() != 0 {
			t.Fatalf("HeldLocks = %d after a failed LockAll", a.HeldLocks())
		}
		_, err = a.LockAll(ctx, []string{"z", "m", "a"}, lock4go.WithAcquireTimeout(0))
		if !errors.Is(err, lock4go.ErrNotAcquired) || a.HeldLocks() != 0 {
			t.Fatalf("LockAll without waiting = %v, held %d", err, a.HeldLocks())
		}
		for _, k := range []string{"a", "z"} {
			m, err := b.TryLock(ctx, k)
			if err != nil {
				t.Fatalf("%q still held after a failed LockAll: %v", k, err)
			}
			m.Release(ctx)
		}
	})
}

// A waiting LockAll gets every key once the busy one is released, including
// keys after it that it had to give back.
func TestLockAll_waitsForBusyKey(t *testing.T) {
	forBoth(t, func(t *testing.T, a, b *lock4go.Template, inProcess bool) {
		ctx := t.Context()
		busy, err := b.Lock(ctx, "b")
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan error, 1)
		var l *lock4go.Lock
		go func() {
			var err error
			l, err = a.LockAll(ctx, []string{"c", "b", "a"})
			got <- err
		}()
		// a is held by the waiter (canonical order) while it waits for b; c
		// is not: a backend with round trips tried it and gave it back.
		obs := a.Config().Observer.(*observed)
		<-obs.of(lock4go.EventAcquired, "a")
		if !inProcess {
			<-obs.of(lock4go.EventReleased, "c")
		}
		if _, err := b.TryLock(ctx, "a"); !errors.Is(err, lock4go.ErrNotAcquired) {
			t.Fatalf("a free while LockAll waits for b: %v", err)
		}
		c, err := b.TryLock(ctx, "c")
		if err != nil {
			t.Fatalf("c held while waiting for b: %v", err)
		}
		c.Release(ctx)
		busy.Release(ctx)
		if err := <-got; err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(l.Keys(), []string{"a", "b", "c"}) {
			t.Fatalf("Keys = %v", l.Keys())
		}
		l.Release(ctx)
	})
}

// Callers locking overlapping sets in different orders never deadlock.
func TestLockAll_overlappingSetsNoDeadlock(t *testing.T) {
	forBoth(t, func(t *testing.T, a, b *lock4go.Template, inProcess bool) {
		ctx := t.Context()
		sets := [][]string{{"x", "y"}, {"y", "x"}, {"y", "z", "x"}, {"z", "x"}}
		var wg sync.WaitGroup
		inside := map[string]bool{}
		var mu sync.Mutex
		errc := make(chan error, 64)
		for i := range 8 {
			tpl := a
			if i%2 == 1 {
				tpl = b
			}
			keys := sets[i%len(sets)]
			wg.Go(func() {
				for range 20 {
					err := tpl.DoAll(ctx, keys, func(context.Context) error {
						mu.Lock()
						for _, k := range keys {
							if inside[k] {
								mu.Unlock()
								return fmt.Errorf("two holders of %q", k)
							}
						}
						for _, k := range keys {
							inside[k] = true
						}
						mu.Unlock()
						runtime.Gosched()
						mu.Lock()
						for _, k := range keys {
							inside[k] = false
						}
						mu.Unlock()
						return nil
					}, lock4go.WithAcquireTimeout(10*time.Second))
					if err != nil {
						errc <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Error(err)
		}
	})
}

func TestDoAll_contextCarriesEveryKey(t *testing.T) {
	a, _ := lockAllTemplates(t, true)
	err := a.DoAll(t.Context(), []string{"p", "q"}, func(ctx context.Context) error {
		for _, k := range []string{"p", "q"} {
			l, err := a.TryLock(ctx, k)
			if err != nil {
				return fmt.Errorf("re-enter %q: %w", k, err)
			}
			if lock4go.LockFrom(ctx, k) == nil {
				return fmt.Errorf("LockFrom(%q) = nil", k)
			}
			l.Release(ctx)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if a.HeldLocks() != 0 {
		t.Fatalf("HeldLocks = %d after DoAll", a.HeldLocks())
	}
}

// Losing one key closes Done, cancels DoAll's context with ErrLockLost and
// makes DoAll's error wrap it.
func TestDoAll_lossOfOneKey(t *testing.T) {
	mem := memory.New(memory.Options{})
	tpl, _ := lock4go.New(lock4go.Config{}, mem)
	ctx := t.Context()
	l, err := tpl.LockAll(ctx, []string{"k1", "k2"}, lock4go.WithExpire(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	lctx, cancel := l.Context(ctx)
	defer cancel()
	h, err := mem.Inspect(ctx, "k2")
	if err != nil {
		t.Fatal(err)
	}
	if err := mem.ForceRelease(ctx, "k2", h); err != nil {
		t.Fatal(err)
	}
	<-l.Done()
	<-lctx.Done()
	if !errors.Is(l.Err(), lock4go.ErrLockLost) || !errors.Is(context.Cause(lctx), lock4go.ErrLockLost) {
		t.Fatalf("Err = %v, cause = %v, want ErrLockLost", l.Err(), context.Cause(lctx))
	}
	l.Release(ctx)
	if tpl.HeldLocks() != 0 {
		t.Fatalf("HeldLocks = %d", tpl.HeldLocks())
	}

	err = tpl.DoAll(ctx, []string{"k1", "k2"}, func(ctx context.Context) error {
		h, err := mem.Inspect(ctx, "k1")
		if err != nil {
			return err
		}
		if err := mem.ForceRelease(ctx, "k1", h); err != nil {
			return err
		}
		<-ctx.Done()
		return context.Cause(ctx)
	}, lock4go.WithExpire(time.Hour))
	if !errors.Is(err, lock4go.ErrLockLost) {
		t.Fatalf("DoAll with a lost key = %v, want ErrLockLost", err)
	}
}

// observed is an Observer that signals events by kind and key.
type observed struct {
	mu   sync.Mutex
	seen map[observedEvent]chan struct{}
}

type observedEvent struct {
	kind lock4go.EventKind
	key  string
}

// of returns a channel closed once an event of kind on key was observed.
func (o *observed) of(kind lock4go.EventKind, key string) chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.seen == nil {
		o.seen = map[observedEvent]chan struct{}{}
	}
	ev := observedEvent{kind, key}
	ch := o.seen[ev]
	if ch == nil {
		ch = make(chan struct{})
		o.seen[ev] = ch
	}
	return ch
}

func (o *observed) Observe(_ context.Context, e lock4go.Event) {
	ch := o.of(e.Kind, e.Key)
	o.mu.Lock()
	defer o.mu.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}
