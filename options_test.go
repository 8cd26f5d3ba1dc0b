package lock4go_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
)

// TestLockOption_zeroMeansDefault checks the rule of the package
// documentation's "Zero values": a zero option argument is the Template's
// default, the same as no option at all.
func TestLockOption_zeroMeansDefault(t *testing.T) {
	bubble(t, func(t *testing.T) {
		f := &fakeExec{name: "fake", prio: 1, acquireF: busy}
		cfg := lock4go.Config{AcquireTimeout: 450 * time.Millisecond, RetryInterval: 100 * time.Millisecond}
		tpl, err := lock4go.New(cfg, f, &fakeExec{name: "other", prio: 2})
		if err != nil {
			t.Fatal(err)
		}
		zeros := []lock4go.LockOption{
			lock4go.WithAcquireTimeout(0), lock4go.WithRetryInterval(0), lock4go.WithAttemptGrace(0),
			lock4go.WithExpire(0), lock4go.WithPermits(0), lock4go.WithExecutor(""),
		}
		for _, opt := range zeros {
			start := time.Now()
			_, err := tpl.Lock(t.Context(), "k", opt)
			var aerr *lock4go.AcquireError
			if !errors.As(err, &aerr) || aerr.Executor != "fake" || aerr.Attempts != 5 || time.Since(start) != 450*time.Millisecond {
				t.Fatalf("Lock with %+v = %v, want the defaults: 5 attempts on fake in 450ms", opt, err)
			}
		}
		// The zero lease is the Template's, renewed by the watchdog.
		f.acquireF = nil
		l, err := tpl.Lock(t.Context(), "k", lock4go.WithExpire(0))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Release(t.Context())
		if r := f.lastRequest(); r.TTL != lock4go.DefaultExpire || !r.Renewed || r.Permits != 0 {
			t.Fatalf("WithExpire(0) asked for %+v, want the default lease, renewed", r)
		}
	})
}

// TestLockOption_negative checks that every negative argument is
// ErrInvalidConfig from every call, and that nothing reaches the executor.
func TestLockOption_negative(t *testing.T) {
	f := &fakeExec{name: "fake", prio: 1}
	tpl, err := lock4go.New(lock4go.Config{}, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []lock4go.LockOption{
		lock4go.WithAcquireTimeout(-1), lock4go.WithRetryInterval(-time.Second), lock4go.WithAttemptGrace(-1),
		lock4go.WithExpire(-time.Second), lock4go.WithPermits(-2),
	} {
		if _, err := tpl.Lock(t.Context(), "k", opt); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("Lock with %+v = %v, want ErrInvalidConfig", opt, err)
		}
		if _, err := tpl.LockAll(t.Context(), []string{"a", "b"}, opt); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("LockAll with %+v = %v, want ErrInvalidConfig", opt, err)
		}
		if err := tpl.Lead(t.Context(), "k", nil, opt); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("Lead with %+v = %v, want ErrInvalidConfig", opt, err)
		}
	}
	if n := len(f.attempts()); n != 0 {
		t.Fatalf("%d attempts reached the executor", n)
	}
	for _, cfg := range []lock4go.Config{
		{Expire: -1}, {AcquireTimeout: -1}, {RetryInterval: -1}, {ReleaseTimeout: -1}, {AttemptGrace: -1},
	} {
		if _, err := lock4go.New(cfg, f); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("New(%+v) = %v, want ErrInvalidConfig", cfg, err)
		}
	}
}

// TestNoWait checks that NoWait is one attempt that asks the executor not
// to wait, whatever the acquire timeout says, for Lock and LockAll alike,
// and that TryLock is the same.
func TestNoWait(t *testing.T) {
	bubble(t, func(t *testing.T) {
		f := &fakeExec{name: "fake", prio: 1, acquireF: busy}
		tpl, _ := lock4go.New(lock4go.Config{}, f)
		calls := map[string]func() error{
			"Lock": func() error {
				_, err := tpl.Lock(t.Context(), "k", lock4go.NoWait(), lock4go.WithAcquireTimeout(time.Minute))
				return err
			},
			"TryLock": func() error { _, err := tpl.TryLock(t.Context(), "k"); return err },
			"LockAll": func() error {
				_, err := tpl.LockAll(t.Context(), []string{"a", "b"}, lock4go.WithAcquireTimeout(time.Minute), lock4go.NoWait())
				return err
			},
		}
		for name, call := range calls {
			before := len(f.attempts())
			start := time.Now()
			err := call()
			var aerr *lock4go.AcquireError
			if !errors.As(err, &aerr) || !errors.Is(err, lock4go.ErrNotAcquired) || aerr.Attempts != 1 || time.Since(start) != 0 {
				t.Fatalf("%s = %v after %v, want one busy attempt at once", name, err, time.Since(start))
			}
			if r := f.lastRequest(); r.Wait || !r.WaitUntil.IsZero() {
				t.Fatalf("%s asked the executor to wait: %+v", name, r)
			}
			if n := len(f.attempts()) - before; n > 3 { // LockAll tries each key at once, then the first busy one
				t.Fatalf("%s made %d attempts", name, n)
			}
		}
	})
}

func (f *fakeExec) lastRequest() executor.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reqs[len(f.reqs)-1]
}
