package etcd_test

import (
	"context"
	"testing"
	"time"

	"go.etcd.io/etcd/client/v3/concurrency"
	recipe "go.etcd.io/etcd/client/v3/experimental/recipes"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
)

func read(key string, wait bool) executor.Request {
	r := watchdog(key, wait)
	r.Shared = true
	return r
}

// recipeCall runs f (a blocking RWMutex call) in the background and
// returns a channel closed when it returned.
func recipeCall(t *testing.T, f func() error) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := f(); err != nil {
			t.Error(err)
		}
	}()
	return done
}

func blocked(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
		t.Fatalf("%s did not wait", what)
	case <-time.After(300 * time.Millisecond):
	}
}

func returns(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still waits after 10s", what)
	}
}

// TestInterop_recipeRWMutex checks lock4go's read and write locks
// (Options.RWLockLayout) against etcd's recipes RWMutex on the same key:
// readers share, writers exclude both ways.
func TestInterop_recipeRWMutex(t *testing.T) {
	testserver.Check(t, srvErr)
	cli := newClient(t, srv.Addr())
	e := newExec(t, cli, etcd.Options{RWLockLayout: true})
	s, err := concurrency.NewSession(cli, concurrency.WithTTL(10))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	k := uniqueKey(t)
	rw := recipe.NewRWMutex(s, k)

	// The recipe reads: lock4go reads beside it, its writer waits.
	if err := rw.RLock(); err != nil {
		t.Fatal(err)
	}
	r := mustAcquire(t, e, read(k, false))
	mustBeBusy(t, e, k)
	ch := acquireAsync(t.Context(), e, watchdog(k, true))
	notYet(t, ch, 200*time.Millisecond)
	if err := rw.RUnlock(); err != nil {
		t.Fatal(err)
	}
	notYet(t, ch, 200*time.Millisecond) // lock4go's reader still holds
	mustRelease(t, r)
	w := outcome(t, ch)

	// lock4go writes: the recipe's reader and writer wait.
	rl := recipe.NewRWMutex(s, k)
	done := recipeCall(t, rl.RLock)
	blocked(t, done, "recipe RLock while lock4go writes")
	mustRelease(t, w)
	returns(t, done, "recipe RLock after lock4go's write")
	if _, err := e.Acquire(t.Context(), read(k, false)); err != nil {
		t.Fatalf("lock4go read beside a recipe reader: %v", err)
	}

	// lock4go reads: the recipe's writer waits for it.
	k2 := uniqueKey(t) + "-2"
	r2 := mustAcquire(t, e, read(k2, false))
	wl := recipe.NewRWMutex(s, k2)
	done = recipeCall(t, wl.Lock)
	blocked(t, done, "recipe Lock while lock4go reads")
	mustRelease(t, r2)
	returns(t, done, "recipe Lock after lock4go's read")
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := e.Acquire(ctx, read(k2, true)); err == nil {
		t.Fatal("lock4go read while the recipe writes")
	}
	if err := wl.Unlock(); err != nil {
		t.Fatal(err)
	}
	mustRelease(t, mustAcquire(t, e, read(k2, false)))
}
