package lock4go_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
)

// slowExec answers each attempt after delay (fake clock), with a lease or
// ErrNotAcquired, or not at all while ctx lives when delay is negative.
func slowExec(delay time.Duration, grant bool) *fakeExec {
	return &fakeExec{name: "fake", prio: 1, acquireF: func(ctx context.Context, req executor.Request) (executor.Lease, error) {
		if delay < 0 {
			<-ctx.Done()
			return nil, fmt.Errorf("fake: %w: %w", executor.ErrBackend, executor.ContextError(ctx))
		}
		start := time.Now()
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, fmt.Errorf("fake: %w: %w", executor.ErrBackend, executor.ContextError(ctx))
		}
		if !grant {
			return nil, fmt.Errorf("fake: %w", executor.ErrNotAcquired)
		}
		return &fakeLease{token: 1, start: start}, nil
	}}
}

// An attempt in flight when the acquire timeout passes finishes within the
// grace and its answer counts: a grant is a lock, a busy key ErrNotAcquired;
// only no answer by the end of the grace is ErrBackend.
func TestTemplate_Lock_attemptGrace(t *testing.T) {
	cases := []struct {
		name      string
		delay     time.Duration
		grant     bool
		opts      []lock4go.LockOption
		wantErr   error // nil: held
		wantAfter time.Duration
	}{
		{"granted in grace", 15 * time.Millisecond, true, nil, nil, 15 * time.Millisecond},
		{"busy in grace", 15 * time.Millisecond, false, nil, lock4go.ErrNotAcquired, 15 * time.Millisecond},
		{"no answer", -1, false, nil, lock4go.ErrBackend, 10*time.Millisecond + lock4go.DefaultAttemptGrace},
		{"per-call grace", -1, false, []lock4go.LockOption{lock4go.WithAttemptGrace(40 * time.Millisecond)}, lock4go.ErrBackend, 50 * time.Millisecond},
		{"answer after grace", lock4go.DefaultAttemptGrace + 100*time.Millisecond, true, nil, lock4go.ErrBackend, 10*time.Millisecond + lock4go.DefaultAttemptGrace},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bubble(t, func(t *testing.T) {
				f := slowExec(tc.delay, tc.grant)
				tpl, _ := lock4go.New(lock4go.Config{AcquireTimeout: 10 * time.Millisecond}, f)
				start := time.Now()
				l, err := tpl.Lock(t.Context(), "k", tc.opts...)
				if got := time.Since(start); got != tc.wantAfter {
					t.Errorf("Lock returned after %v, want %v", got, tc.wantAfter)
				}
				if tc.wantErr == nil {
					if err != nil {
						t.Fatalf("Lock = %v, want the lock granted within the grace", err)
					}
					if err := l.Release(t.Context()); err != nil {
						t.Fatal(err)
					}
					return
				}
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Lock = %v, want %v", err, tc.wantErr)
				}
				if tc.wantErr == lock4go.ErrNotAcquired && errors.Is(err, lock4go.ErrBackend) {
					t.Fatalf("Lock = %v: a busy answer in the grace is not a backend error", err)
				}
				if n := len(f.attempts()); n != 1 {
					t.Fatalf("%d attempts, want 1: none may start after the acquire timeout", n)
				}
			})
		})
	}
}

// TryLock's single attempt is bounded by the grace too, and a caller's own
// cancellation still ends a wait for an answer at once.
func TestTemplate_TryLock_attemptGrace(t *testing.T) {
	bubble(t, func(t *testing.T) {
		tpl, _ := lock4go.New(lock4go.Config{AttemptGrace: 200 * time.Millisecond}, slowExec(-1, false))
		start := time.Now()
		_, err := tpl.TryLock(t.Context(), "k")
		if !errors.Is(err, lock4go.ErrBackend) || time.Since(start) != 200*time.Millisecond {
			t.Fatalf("TryLock = %v after %v, want ErrBackend after the 200ms grace", err, time.Since(start))
		}
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(5*time.Millisecond, cancel)
		start = time.Now()
		_, err = tpl.Lock(ctx, "k")
		if !errors.Is(err, context.Canceled) || time.Since(start) != 5*time.Millisecond {
			t.Fatalf("Lock = %v after %v, want the caller's cancel after 5ms", err, time.Since(start))
		}
	})
}

// On context.Background an attempt and a release share their bounding
// contexts with the calls that end in the same tick (deadlines.go): they
// still end at their bounds, less than 1/256 of the grace or ReleaseTimeout
// early and never late, with the same errors and causes.
func TestTemplate_backgroundBounds(t *testing.T) {
	bubble(t, func(t *testing.T) {
		grace, releaseTimeout := lock4go.DefaultAttemptGrace, lock4go.DefaultReleaseTimeout
		tpl, _ := lock4go.New(lock4go.Config{AcquireTimeout: 10 * time.Millisecond}, slowExec(-1, false))
		start := time.Now()
		_, err := tpl.Lock(context.Background(), "k")
		want := 10*time.Millisecond + grace
		if got := time.Since(start); !errors.Is(err, lock4go.ErrBackend) || got > want || got <= want-grace/256 {
			t.Fatalf("Lock = %v after %v, want ErrBackend after %v, less than %v early", err, got, want, grace/256)
		}
		stalled := &fakeLease{token: 1, releaseF: func(ctx context.Context) error {
			<-ctx.Done()
			return fmt.Errorf("fake: %w: %w", executor.ErrBackend, context.Cause(ctx))
		}}
		f := &fakeExec{name: "fake", prio: 1, acquireF: func(context.Context, executor.Request) (executor.Lease, error) {
			return stalled, nil
		}}
		tpl, _ = lock4go.New(lock4go.Config{}, f)
		l, err := tpl.Lock(context.Background(), "k")
		if err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		err = l.Release(context.Background())
		got := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "Config.ReleaseTimeout") || got > releaseTimeout || got <= releaseTimeout-releaseTimeout/256 {
			t.Fatalf("Release = %v after %v, want the release timeout's cause after %v, less than %v early", err, got, releaseTimeout, releaseTimeout/256)
		}
	})
}

// The Template tells queue-based executors when the waiting ends, and
// TryLock asks for no wait.
func TestTemplate_Lock_waitUntil(t *testing.T) {
	bubble(t, func(t *testing.T) {
		f := &fakeExec{name: "fake", prio: 1}
		tpl, _ := lock4go.New(lock4go.Config{AcquireTimeout: 2 * time.Second}, f)
		start := time.Now()
		l, err := tpl.Lock(t.Context(), "k")
		if err != nil {
			t.Fatal(err)
		}
		_ = l.Release(t.Context())
		if l, err = tpl.TryLock(t.Context(), "k"); err != nil {
			t.Fatal(err)
		}
		_ = l.Release(t.Context())
		if got := f.reqs[0].WaitUntil; !got.Equal(start.Add(2 * time.Second)) {
			t.Errorf("Lock: WaitUntil = %v, want the acquire deadline %v", got, start.Add(2*time.Second))
		}
		if r := f.reqs[1]; r.Wait || !r.WaitUntil.IsZero() {
			t.Errorf("TryLock: Wait %v, WaitUntil %v, want no wait", r.Wait, r.WaitUntil)
		}
	})
}

// A fixed lease counts from the lease's Start (the grant), not from the
// start of the attempt; a lease already over when granted is never handed
// out.
func TestTemplate_Lock_fixedLeaseFromGrant(t *testing.T) {
	bubble(t, func(t *testing.T) {
		var lease *fakeLease
		f := &fakeExec{name: "fake", prio: 1, acquireF: func(ctx context.Context, req executor.Request) (executor.Lease, error) {
			time.Sleep(3 * time.Second) // queued behind a holder
			lease = &fakeLease{token: 1, start: time.Now()}
			return lease, nil
		}}
		tpl, _ := lock4go.New(lock4go.Config{AcquireTimeout: 10 * time.Second}, f)
		l, err := tpl.Lock(t.Context(), "k", lock4go.WithExpire(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		granted := time.Now()
		<-l.Done()
		if got := time.Since(granted); got < 1900*time.Millisecond || got > 2*time.Second {
			t.Fatalf("fixed lease of 2s ended %v after the grant", got)
		}
		if !errors.Is(l.Err(), lock4go.ErrLockLost) {
			t.Fatalf("Err = %v", l.Err())
		}

		stale := &fakeLease{token: 2}
		f.acquireF = func(context.Context, executor.Request) (executor.Lease, error) {
			stale.start = time.Now().Add(-3 * time.Second)
			return stale, nil
		}
		_, err = tpl.TryLock(t.Context(), "k", lock4go.WithExpire(2*time.Second))
		if !errors.Is(err, lock4go.ErrBackend) {
			t.Fatalf("TryLock with a lease over at the grant = %v, want ErrBackend", err)
		}
		if n := stale.releases.Load(); n != 1 {
			t.Fatalf("the stale lease was released %d times, want 1", n)
		}
	})
}

type ctxKey struct{}

// An attempt on a context that is never cancelled, and a release on any
// context, run on a joint bound (deadlines.go) that carries the caller's
// values, with the bound's deadline and not the caller's cancellation.
func TestTemplate_jointBoundsValues(t *testing.T) {
	bubble(t, func(t *testing.T) {
		type seen struct {
			value    any
			deadline time.Time
			err      error
		}
		var attempt, release seen
		look := func(ctx context.Context) seen {
			d, _ := ctx.Deadline()
			return seen{ctx.Value(ctxKey{}), d, ctx.Err()}
		}
		lease := &fakeLease{token: 1, releaseF: func(ctx context.Context) error { release = look(ctx); return nil }}
		f := &fakeExec{name: "fake", prio: 1, acquireF: func(ctx context.Context, _ executor.Request) (executor.Lease, error) {
			attempt = look(ctx)
			return lease, nil
		}}
		tpl, _ := lock4go.New(lock4go.Config{}, f)
		start := time.Now()
		l, err := tpl.Lock(context.WithValue(context.Background(), ctxKey{}, "attempt"), "k")
		if err != nil {
			t.Fatal(err)
		}
		want := start.Add(lock4go.DefaultAcquireTimeout + lock4go.DefaultAttemptGrace)
		if attempt.value != "attempt" || attempt.deadline.After(want) || !attempt.deadline.After(want.Add(-lock4go.DefaultAttemptGrace/256)) {
			t.Errorf("attempt saw value %v, deadline %v; want the caller's value and %v, less than %v early", attempt.value, attempt.deadline, want, lock4go.DefaultAttemptGrace/256)
		}
		request, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "release"))
		cancel() // a request that ended: the release runs detached
		start = time.Now()
		if err := l.Release(request); err != nil {
			t.Fatal(err)
		}
		want = start.Add(lock4go.DefaultReleaseTimeout)
		if release.value != "release" || release.err != nil || release.deadline.After(want) || !release.deadline.After(want.Add(-lock4go.DefaultReleaseTimeout/256)) {
			t.Errorf("release saw value %v, Err %v, deadline %v; want the caller's value, no error and %v, less than %v early", release.value, release.err, release.deadline, want, lock4go.DefaultReleaseTimeout/256)
		}
	})
}
