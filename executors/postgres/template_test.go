package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/internal/testwait"
)

// Through the Template: a lock broken from outside (ForceRelease) is
// noticed by the holder's renewals, which cancel its context with
// ErrLockLost, and the waiter of another Template gets the key.
func TestTemplate_Do_forceReleased(t *testing.T) {
	cfg := lock4go.Config{Expire: 900 * time.Millisecond, AcquireTimeout: 10 * time.Second, Logger: testLogger(t)}
	tplA, err := lock4go.New(cfg, direct(t))
	if err != nil {
		t.Fatal(err)
	}
	execB := direct(t)
	tplB, err := lock4go.New(cfg, execB)
	if err != nil {
		t.Fatal(err)
	}
	k := uniq(t, "tpl:")
	held := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- tplA.Do(t.Context(), k, func(ctx context.Context) error {
			close(held)
			<-ctx.Done()
			return context.Cause(ctx)
		})
	}()
	<-held
	waiter := make(chan error, 1)
	go func() {
		l, err := tplB.Lock(t.Context(), k)
		if err == nil {
			err = l.Release(t.Context())
		}
		waiter <- err
	}()
	var h lock4go.Holder
	if !testwait.Until(10*time.Second, func() bool {
		h, err = tplB.Inspect(t.Context(), k)
		return err == nil && h.Waiters == 1
	}) {
		t.Fatalf("Inspect = %+v, %v; want a holder and one waiter", h, err)
	}
	if err := execB.ForceRelease(t.Context(), k, h); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, lock4go.ErrLockLost) {
			t.Fatalf("Do = %v, want ErrLockLost", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the holder's context was not cancelled after its lock was broken")
	}
	if err := <-waiter; err != nil {
		t.Fatalf("waiter: %v", err)
	}
}

// TestTemplate_kinds: LockAll, Lead and read locks through the Template.
func TestTemplate_kinds(t *testing.T) {
	tpl, err := lock4go.New(lock4go.Config{Logger: testLogger(t)}, direct(t))
	if err != nil {
		t.Fatal(err)
	}
	a, b := uniq(t, "all-a:"), uniq(t, "all-b:")
	all, err := tpl.LockAll(t.Context(), []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if err := all.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	r1, err := tpl.Lock(t.Context(), a, lock4go.Shared())
	if err != nil {
		t.Fatal(err)
	}
	r2, err := tpl.Lock(t.Context(), a, lock4go.Shared())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tpl.TryLock(t.Context(), a); !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("TryLock of a read-locked key = %v, want ErrNotAcquired", err)
	}
	for _, l := range []*lock4go.Lock{r1, r2} {
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	led := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- tpl.Lead(ctx, b, func(ctx context.Context) error {
			close(led)
			<-ctx.Done()
			return nil
		})
	}()
	<-led
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("Lead = %v", err)
	}
}
