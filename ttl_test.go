package lock4go_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

// secondsExec is a fake executor whose shortest lease is a second, as
// etcd's.
type secondsExec struct{ *fakeExec }

func (secondsExec) Capabilities() executor.Capabilities {
	return executor.Capabilities{MinTTL: time.Second}
}

// TestWithExpire_belowShortestLease: a lease shorter than the executor
// grants is ErrInvalidConfig when the call is made, before any attempt
// (it was 3s of attempts ending in "the lease of 1ns ran out before it
// was granted", an ErrBackend); one as long is tried. Config.Expire below
// it is refused by New.
func TestWithExpire_belowShortestLease(t *testing.T) {
	f := secondsExec{&fakeExec{name: "fake", prio: 1}}
	tpl, err := lock4go.New(lock4go.Config{}, f, memory.New(memory.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		exec string
		d    time.Duration
	}{
		{"memory", time.Nanosecond}, {"memory", executor.MinTTL - 1}, {"fake", time.Second - 1},
	} {
		opts := []lock4go.LockOption{lock4go.WithExecutor(tc.exec), lock4go.WithExpire(tc.d)}
		start := time.Now()
		if _, err := tpl.Lock(t.Context(), "k", opts...); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("Lock on %s with WithExpire(%v) = %v, want ErrInvalidConfig", tc.exec, tc.d, err)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("Lock on %s with WithExpire(%v) took %v: not refused at the call", tc.exec, tc.d, took)
		}
		if _, err := tpl.LockAll(t.Context(), []string{"a", "b"}, opts...); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("LockAll on %s with WithExpire(%v) = %v, want ErrInvalidConfig", tc.exec, tc.d, err)
		}
	}
	if n := len(f.attempts()); n != 0 {
		t.Fatalf("%d attempts reached the executor", n)
	}
	for _, exec := range []string{"memory", "fake"} {
		d := map[string]time.Duration{"memory": executor.MinTTL, "fake": time.Second}[exec]
		l, err := tpl.Lock(t.Context(), "k", lock4go.WithExecutor(exec), lock4go.WithExpire(d))
		switch {
		case errors.Is(err, lock4go.ErrInvalidConfig):
			t.Fatalf("Lock on %s with WithExpire(%v) = %v: refused, want it tried", exec, d, err)
		case err != nil && exec == "memory" && errors.Is(err, lock4go.ErrBackend):
			// Tried: a lease of 1ms can run out before the Template
			// confirms it on a busy machine (5 ms under make
			// test-under-load), and the Template says so.
			t.Logf("Lock on %s with WithExpire(%v) was tried and its lease ran out: %v", exec, d, err)
		case err != nil:
			t.Fatalf("Lock on %s with WithExpire(%v): %v", exec, d, err)
		default:
			_ = l.Release(t.Context())
		}
	}
	if _, err := lock4go.New(lock4go.Config{Expire: 500 * time.Millisecond}, f); !errors.Is(err, lock4go.ErrInvalidConfig) {
		t.Errorf("New with Config.Expire 500ms and an executor granting 1s = %v, want ErrInvalidConfig", err)
	}
}
