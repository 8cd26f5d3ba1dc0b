package lock4go

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/internal/lifecycle"
)

var quietLogger = slog.New(slog.DiscardHandler)

// endNow moves h's local end to the past as if its lease had run out while
// the watchdog, whose timer is set for the old end, has not run: what a
// late timer or a paused process leaves.
func endNow(h *hold) { h.leaseEnd.Store(time.Now().Add(-time.Millisecond)) }

// Past the lock's local end, Lock.Err answers lost by itself and ends the
// lock before it returns: Done closed, contexts cancelled with the cause,
// the local queue free, the lease released. Nothing else has run.
func TestLock_Err_pastLocalEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := memory.New(memory.Options{})
		tpl, _ := New(Config{Logger: quietLogger}, mem)
		for _, opts := range [][]LockOption{{WithExpire(time.Hour)}, nil} {
			l, err := tpl.Lock(t.Context(), "k", opts...)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := l.Context(t.Context())
			endNow(l.h)
			if err := l.Err(); !errors.Is(err, ErrLockLost) {
				t.Fatalf("Err past the local end = %v, want ErrLockLost", err)
			}
			if !lifecycle.Closed(l.Done()) || !lifecycle.Closed(ctx.Done()) {
				t.Fatal("Done not closed when Err returned lost")
			}
			if c := context.Cause(ctx); !errors.Is(c, ErrLockLost) {
				t.Fatalf("Cause = %v, want ErrLockLost", c)
			}
			cancel()
			// The local queue is free at once: TryLock does not find the
			// key held by this process (the backend's copy goes in the
			// background).
			synctest.Wait()
			l2, err := tpl.TryLock(t.Context(), "k", opts...)
			if err != nil {
				t.Fatalf("key not free after the local end: %v", err)
			}
			_ = l2.Release(t.Context())
		}
		time.Sleep(time.Second) // the idle watchdog exits
	})
}

// The context of a held lock answers the same way: its Err is not nil past
// the end even before any goroutine ran, and keeps the context contract
// (Done closed, Cause ErrLockLost, by the time Err returns).
func TestLockContext_Err_pastLocalEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tpl, _ := New(Config{Logger: quietLogger}, memory.New(memory.Options{}))
		err := tpl.Do(t.Context(), "k", func(ctx context.Context) error {
			if err := ctx.Err(); err != nil {
				t.Fatalf("ctx.Err inside Do = %v while held", err)
			}
			endNow(holdFrom(ctx, tpl, tpl.byName["memory"], "k"))
			if err := ctx.Err(); !errors.Is(err, context.Canceled) {
				t.Fatalf("ctx.Err past the end = %v, want Canceled", err)
			}
			if !lifecycle.Closed(ctx.Done()) {
				t.Fatal("ctx.Done not closed when Err returned")
			}
			if c := context.Cause(ctx); !errors.Is(c, ErrLockLost) {
				t.Fatalf("Cause = %v, want ErrLockLost", c)
			}
			return nil
		}, WithExpire(time.Hour))
		if !errors.Is(err, ErrLockLost) {
			t.Fatalf("Do = %v, want ErrLockLost", err)
		}
		time.Sleep(time.Second)
	})
}

// A LockAll context ends when any key passes its end.
func TestLockAll_context_pastLocalEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tpl, _ := New(Config{Logger: quietLogger}, memory.New(memory.Options{}))
		l, err := tpl.LockAll(t.Context(), []string{"a", "b", "c"})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := l.Context(t.Context())
		defer cancel()
		endNow(l.of.(*lockSet).locks[1].h)
		if err := ctx.Err(); err == nil || !errors.Is(context.Cause(ctx), ErrLockLost) {
			t.Fatalf("ctx.Err = %v, cause %v, want cancelled with ErrLockLost", err, context.Cause(ctx))
		}
		if !errors.Is(l.Err(), ErrLockLost) || !lifecycle.Closed(l.Done()) {
			t.Fatalf("LockAll's Err = %v, want ErrLockLost and Done closed", l.Err())
		}
		_ = l.Release(t.Context())
		time.Sleep(time.Second)
	})
}

// Goroutines asking at once past the end all get the loss, and every one
// finds Done closed and the cause set (go test -race).
func TestLockContext_Err_concurrent(t *testing.T) {
	tpl, _ := New(Config{Logger: quietLogger}, memory.New(memory.Options{}))
	l, err := tpl.Lock(t.Context(), "k", WithExpire(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := l.Context(t.Context())
	defer cancel()
	endNow(l.h)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if ctx.Err() == nil || l.Err() == nil {
				t.Error("nil answer past the local end")
			}
			if !lifecycle.Closed(ctx.Done()) || !errors.Is(context.Cause(ctx), ErrLockLost) {
				t.Error("Err answered before Done closed and the cause was set")
			}
		})
	}
	wg.Wait()
	if err := l.Release(t.Context()); !errors.Is(err, ErrLockNotHeld) {
		t.Fatalf("Release after the end = %v, want ErrLockNotHeld", err)
	}
}
