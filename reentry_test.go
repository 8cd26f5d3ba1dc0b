package lock4go_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
)

func TestTemplate_reentry(t *testing.T) {
	mem := memory.New(memory.Options{})
	tpl, _ := lock4go.New(lock4go.Config{AcquireTimeout: 100 * time.Millisecond}, mem)
	err := tpl.Do(t.Context(), "k", func(ctx context.Context) error {
		outer, err := mem.Inspect(ctx, "k")
		if err != nil {
			return err
		}
		inner, err := tpl.Lock(ctx, "k")
		if err != nil {
			return err
		}
		if inner.Token() != outer.Token {
			t.Errorf("re-entered token %d, want %d", inner.Token(), outer.Token)
		}
		if err := inner.Release(ctx); err != nil {
			return err
		}
		// The inner release kept the outer hold.
		if _, err := mem.Inspect(ctx, "k"); err != nil {
			t.Errorf("inner release freed the outer lock: %v", err)
		}
		// Without the lock's context, the same goroutine waits like anyone.
		if _, err := tpl.Lock(context.WithoutCancel(context.Background()), "k"); !errors.Is(err, lock4go.ErrNotAcquired) {
			t.Errorf("Lock without the context = %v, want ErrNotAcquired", err)
		}
		// Another key is not re-entered.
		return tpl.Do(ctx, "other", func(context.Context) error { return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Inspect(t.Context(), "k"); !errors.Is(err, lock4go.ErrLockNotHeld) {
		t.Fatalf("still held after Do: %v", err)
	}
}

func TestTemplate_reentry_otherTemplateOrExecutor(t *testing.T) {
	a, b := memory.New(memory.Options{Name: "a"}), memory.New(memory.Options{Name: "b"})
	tpl, _ := lock4go.New(lock4go.Config{AcquireTimeout: 50 * time.Millisecond}, a, b)
	tpl2, _ := lock4go.New(lock4go.Config{AcquireTimeout: 50 * time.Millisecond}, a)
	err := tpl.Do(t.Context(), "k", func(ctx context.Context) error {
		// Same key on another executor: a different lock, taken normally.
		if err := tpl.Do(ctx, "k", func(context.Context) error { return nil }, lock4go.WithExecutor("b")); err != nil {
			t.Errorf("other executor: %v", err)
		}
		// Another template does not re-enter this one's lock.
		if _, err := tpl2.Lock(ctx, "k"); !errors.Is(err, lock4go.ErrNotAcquired) {
			t.Errorf("other template = %v, want ErrNotAcquired", err)
		}
		return nil
	}, lock4go.WithExecutor("a"))
	if err != nil {
		t.Fatal(err)
	}
}

func TestLock_Context_reenterAfterLossFails(t *testing.T) {
	mem := memory.New(memory.Options{})
	tpl, _ := lock4go.New(lock4go.Config{}, mem)
	l, err := tpl.Lock(t.Context(), "k", lock4go.WithExpire(30*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := l.Context(t.Context())
	defer cancel()
	<-ctx.Done()
	if !errors.Is(context.Cause(ctx), lock4go.ErrLockLost) {
		t.Fatalf("cause = %v", context.Cause(ctx))
	}
	if _, err := tpl.Lock(ctx, "k"); !errors.Is(err, lock4go.ErrLockLost) {
		t.Fatalf("re-entering a lost lock = %v, want ErrLockLost", err)
	}
}

func TestLock_Context_followsParent(t *testing.T) {
	tpl, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	l, err := tpl.Lock(t.Context(), "k")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(t.Context())
	type userKey struct{}
	parent, cancelParent := context.WithCancel(context.WithValue(t.Context(), userKey{}, "v"))
	ctx, cancel := l.Context(parent)
	defer cancel()
	if ctx.Value(userKey{}) != "v" {
		t.Fatal("lock context lost the parent's values")
	}
	cancelParent()
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) || errors.Is(context.Cause(ctx), lock4go.ErrLockLost) {
		t.Fatalf("Err, Cause = %v, %v", ctx.Err(), context.Cause(ctx))
	}
	select {
	case <-l.Done():
		t.Fatal("cancelling the context released the lock")
	default:
	}
}
