package lock4go_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

// A held lock is listed with its token, owner, handles and lease; the
// goroutines queued behind it are counted per key; both disappear when the
// lock is released and the queue drains.
func TestTemplate_Snapshot_heldAndQueued(t *testing.T) {
	bubble(t, func(t *testing.T) {
		tpl, _ := lock4go.New(lock4go.Config{Expire: 30 * time.Second}, memory.New(memory.Options{}))
		l, err := tpl.Lock(t.Context(), "order:1")
		if err != nil {
			t.Fatal(err)
		}
		lctx, cancel := l.Context(t.Context())
		defer cancel()
		inner, err := tpl.Lock(lctx, "order:1") // re-entered: one lock, two handles
		if err != nil {
			t.Fatal(err)
		}
		const waiters = 3
		done := make(chan error, waiters)
		for range waiters {
			go func() {
				w, err := tpl.Lock(t.Context(), "order:1", lock4go.WithAcquireTimeout(time.Hour))
				if err == nil {
					err = w.Release(t.Context())
				}
				done <- err
			}()
		}
		time.Sleep(11 * time.Second) // one renewal, at 10s
		synctest.Wait()

		s := tpl.Snapshot()
		if len(s.Held) != 1 {
			t.Fatalf("held = %+v, want one lock", s.Held)
		}
		h := s.Held[0]
		want := lock4go.LockInfo{
			Key: "order:1", Executor: "memory", Kind: lock4go.KindLock, Token: l.Token(), Owner: l.Owner(),
			AcquiredAt: l.AcquiredAt(), Handles: 2, Renewal: lock4go.RenewalWatchdog,
			LeaseLeft: 30*time.Second - 30*time.Second/50 - time.Second, Renewals: 1,
		}
		if h != want {
			t.Fatalf("held lock\n got %+v\nwant %+v", h, want)
		}
		wantQ := []lock4go.KeyQueue{{Executor: "memory", Key: "order:1", Waiting: waiters}}
		if fmt.Sprint(s.Queues) != fmt.Sprint(wantQ) {
			t.Fatalf("queues = %+v, want %+v", s.Queues, wantQ)
		}

		for _, h := range []*lock4go.Lock{inner, l} {
			if err := h.Release(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		for range waiters {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		if s := tpl.Snapshot(); len(s.Held) != 0 || len(s.Queues) != 0 {
			t.Fatalf("after release: held %+v, queues %+v; want none", s.Held, s.Queues)
		}
	})
}

// Busy keys, backend errors and lost locks are listed newest first, and a
// burst of busy keys does not push the rarer incidents out.
func TestTemplate_Snapshot_failures(t *testing.T) {
	bubble(t, func(t *testing.T) {
		lost := make(chan struct{})
		lease := &fakeLease{token: 7, lost: lost}
		backendDown := errors.New("connection refused")
		var fail bool
		f := &fakeExec{name: "fake", prio: 1, acquireF: func(context.Context, executor.Request) (executor.Lease, error) {
			if fail {
				return nil, fmt.Errorf("%w: %w", executor.ErrBackend, backendDown)
			}
			return lease, nil
		}}
		mem := memory.New(memory.Options{})
		tpl, _ := lock4go.New(lock4go.Config{Logger: slog.New(slog.DiscardHandler)}, f, mem)

		l, err := tpl.Lock(t.Context(), "held")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		close(lost)
		<-l.Done()
		time.Sleep(time.Second)
		fail = true
		if _, err := tpl.TryLock(t.Context(), "down"); !errors.Is(err, lock4go.ErrBackend) {
			t.Fatalf("TryLock on a failing backend = %v", err)
		}
		time.Sleep(time.Second)
		busy, _ := tpl.Lock(t.Context(), "busy", lock4go.WithExecutor("memory"))
		for range 40 {
			if _, err := tpl.TryLock(t.Context(), "busy", lock4go.WithExecutor("memory")); !errors.Is(err, lock4go.ErrNotAcquired) {
				t.Fatalf("TryLock on a held key = %v", err)
			}
		}

		s := tpl.Snapshot()
		_ = busy.Release(t.Context())
		var got []string
		for _, f := range s.Failures {
			got = append(got, fmt.Sprintf("%s %s %s", f.Kind, f.Executor, f.Key))
		}
		if len(got) != 34 || got[0] != "not_acquired memory busy" || got[31] != "not_acquired memory busy" ||
			got[32] != "backend fake down" || got[33] != "lost fake held" {
			t.Fatalf("failures = %q, want 32 busy, then the backend error, then the loss", got)
		}
		if !errors.Is(s.Failures[32].Err, backendDown) || !errors.Is(s.Failures[33].Err, lock4go.ErrLockLost) {
			t.Fatalf("errors = %v, %v", s.Failures[32].Err, s.Failures[33].Err)
		}
		fs := s.Executors[0]
		if fs.Name != "fake" || !fs.Primary || fs.Health != lock4go.HealthFailing || fs.Errors != 1 ||
			fs.ErrorsTotal != 1 || !errors.Is(fs.LastError, backendDown) {
			t.Fatalf("fake executor = %+v, want failing with 1 error", fs)
		}
		// The busy TryLocks were answered by the local queue: the key is
		// held by this process, the backend was not asked.
		if ms := s.Executors[1]; ms.Name != "memory" || ms.Primary || ms.Health != lock4go.HealthOK || ms.RoundTrips != 1 {
			t.Fatalf("memory executor = %+v, want ok with 1 round trip", ms)
		}
	})
}

// Round trips are timed for attempts that cannot wait in the executor's
// queue (TryLock, on an executor that does not report releases) and for
// releases; an attempt that may have waited is not.
func TestTemplate_Snapshot_roundTrips(t *testing.T) {
	bubble(t, func(t *testing.T) {
		f := &fakeExec{name: "fake", prio: 1, acquireF: func(context.Context, executor.Request) (executor.Lease, error) {
			time.Sleep(3 * time.Millisecond)
			return &fakeLease{token: 1}, nil
		}}
		tpl, _ := lock4go.New(lock4go.Config{}, f, memory.New(memory.Options{}))
		if s := tpl.Snapshot(); s.Executors[0].Health != lock4go.HealthUnknown || s.Executors[0].RoundTrips != 0 {
			t.Fatalf("before any lock: %+v", s.Executors[0])
		}
		for range 3 {
			l, err := tpl.TryLock(t.Context(), "k")
			if err != nil {
				t.Fatal(err)
			}
			_ = l.Release(t.Context())
		}
		l, err := tpl.Lock(t.Context(), "k")
		if err != nil {
			t.Fatal(err)
		}
		_ = l.Release(t.Context())
		s := tpl.Snapshot().Executors[0]
		// The fake executor polls (zero Capabilities.Wait): each of its
		// attempts, the waiting one too, is one round trip, and timed.
		if s.RoundTrips != 8 || s.Health != lock4go.HealthOK || s.P50 != 0 || s.P99 < 2400*time.Microsecond || s.P99 > 3600*time.Microsecond {
			t.Fatalf("fake executor = %+v, want 8 round trips (4 timed attempts, 4 releases), p50 0, p99 3ms", s)
		}
		if m := tpl.Snapshot().Executors[1]; m.Health != lock4go.HealthUnknown {
			t.Fatalf("unused executor: %+v", m)
		}
	})
}
