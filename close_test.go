package lock4go_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
)

// TestTemplate_executorClosed checks what a Template's callers see when
// its executor closes: the holder's lock is lost with ErrClosed as the
// cause, waiters (in the local queue and in the executor's) return
// ErrClosed at once instead of at their acquire timeout, and later
// acquisitions fail at once with ErrClosed and ErrBackend.
func TestTemplate_executorClosed(t *testing.T) {
	mem := memory.New(memory.Options{})
	cfg := lock4go.Config{AcquireTimeout: time.Minute, Logger: slog.New(slog.DiscardHandler)}
	tpl, err := lock4go.New(cfg, mem)
	if err != nil {
		t.Fatal(err)
	}
	other, err := lock4go.New(cfg, mem)
	if err != nil {
		t.Fatal(err)
	}
	l, err := tpl.Lock(t.Context(), "order:42")
	if err != nil {
		t.Fatal(err)
	}
	waiters := make(chan error, 2)
	for _, w := range []*lock4go.Template{tpl, other} {
		go func() {
			l, err := w.Lock(t.Context(), "order:42")
			if err == nil {
				_ = l.Release(t.Context())
			}
			waiters <- err
		}()
	}
	if _, err := tpl.TryLock(t.Context(), "order:42"); !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("TryLock of a held key = %v, want ErrNotAcquired", err)
	}

	start := time.Now()
	if err := mem.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	select {
	case <-l.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed after the executor closed")
	}
	if err := l.Err(); !errors.Is(err, lock4go.ErrLockLost) || !errors.Is(err, lock4go.ErrClosed) {
		t.Errorf("Err = %v, want ErrLockLost and ErrClosed", err)
	}
	for range 2 {
		select {
		case err := <-waiters:
			if !errors.Is(err, lock4go.ErrClosed) || !errors.Is(err, lock4go.ErrBackend) {
				t.Errorf("waiter = %v, want ErrClosed and ErrBackend", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a waiter still waits 5s after Close; its acquire timeout is a minute")
		}
	}
	t.Logf("waiters returned %v after Close began", time.Since(start))
	_, err = tpl.Lock(context.Background(), "order:43")
	var aerr *lock4go.AcquireError
	if !errors.Is(err, lock4go.ErrClosed) || !errors.As(err, &aerr) || aerr.Attempts != 1 {
		t.Errorf("Lock after Close = %v, want ErrClosed after one attempt", err)
	}
	if err := l.Release(t.Context()); !errors.Is(err, lock4go.ErrLockNotHeld) {
		t.Errorf("Release of the lost lock = %v, want ErrLockNotHeld", err)
	}
}
