package etcd_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/etcd"
)

// uniqueKey returns a lock key no other test or run uses.
func uniqueKey(t testing.TB) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "lock4go-etcd-test/" + t.Name() + "/" + hex.EncodeToString(b[:])
}

func newOwner() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// watchdog is a request as the Template makes it without WithExpire.
func watchdog(key string, wait bool) executor.Request {
	return executor.Request{Key: key, Owner: newOwner(), TTL: 30 * time.Second, Renewed: true, Wait: wait}
}

// fixed is a request as the Template makes it with WithExpire(ttl).
func fixed(key string, ttl time.Duration, wait bool) executor.Request {
	return executor.Request{Key: key, Owner: newOwner(), TTL: ttl, Wait: wait}
}

func mustAcquire(t testing.TB, e *etcd.Executor, r executor.Request) executor.Lease {
	t.Helper()
	l, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatalf("Acquire(%q) = %v", r.Key, err)
	}
	return l
}

func mustBeBusy(t testing.TB, e *etcd.Executor, key string) {
	t.Helper()
	l, err := e.Acquire(t.Context(), fixed(key, 5*time.Second, false))
	if err == nil {
		_ = l.Release(context.WithoutCancel(t.Context()))
		t.Fatalf("Acquire(%q) succeeded; want it busy", key)
	}
	if !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("Acquire(%q) = %v; want ErrNotAcquired", key, err)
	}
}

func mustRelease(t testing.TB, l executor.Lease) {
	t.Helper()
	if err := l.Release(context.WithoutCancel(t.Context())); err != nil {
		t.Fatalf("Release = %v", err)
	}
}

// acquireAsync starts a waiting Acquire and returns its outcome channel.
func acquireAsync(ctx context.Context, e *etcd.Executor, r executor.Request) <-chan result {
	ch := make(chan result, 1)
	go func() {
		l, err := e.Acquire(ctx, r)
		ch <- result{l, err}
	}()
	return ch
}

type result struct {
	l   executor.Lease
	err error
}

// notYet checks that ch has no outcome during d.
func notYet(t testing.TB, ch <-chan result, d time.Duration) {
	t.Helper()
	select {
	case r := <-ch:
		if r.err == nil {
			_ = r.l.Release(context.Background())
		}
		t.Fatalf("waiting Acquire returned early: %v", r.err)
	case <-time.After(d):
	}
}

// outcome waits for ch and fails the test on an error.
func outcome(t testing.TB, ch <-chan result) executor.Lease {
	t.Helper()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("waiting Acquire = %v", r.err)
		}
		return r.l
	case <-time.After(30 * time.Second):
		t.Fatal("waiting Acquire did not return")
		return nil
	}
}
