package reliability

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testserver"
)

// TestServerPause_errNeverLate is item 1's test (a): while the backend's
// server is paused (SIGSTOP) and a busy loop runs on every core, so that
// the Template's timers and goroutines run late, a goroutine samples the
// clock and then the lock's Err (and its context's) as fast as it can.
// No sample may answer "held" past the lock's local end: for a watchdog
// lock, the pause plus the lease less the safety margin (the last renewal
// was sent before the pause); for a fixed lease, its grant plus the lease
// less the margin.
func TestServerPause_errNeverLate(t *testing.T) {
	forEachBackend(t, func(t *testing.T, e *env) {
		for _, mode := range []string{"watchdog", "expire"} {
			t.Run(mode, func(t *testing.T) { errSampling(t, e, []*testserver.Server{e.srv}, mode) })
		}
	})
}

// TestRedlock_serverPause_errNeverLate is TestServerPause_errNeverLate on
// a 3-master Redlock with every master paused.
func TestRedlock_serverPause_errNeverLate(t *testing.T) {
	e, srvs := redlockEnv(t, 3)
	for _, mode := range []string{"watchdog", "expire"} {
		t.Run(mode, func(t *testing.T) { errSampling(t, e, srvs, mode) })
	}
}

func errSampling(t *testing.T, e *env, srvs []*testserver.Server, mode string) {
	s := newSpace(e)
	L := e.lease
	tpl, _ := s.open(t, lock4go.Config{Expire: L})
	var opts []lock4go.LockOption
	if mode == "expire" {
		opts = append(opts, lock4go.WithExpire(L))
	}
	l, err := tpl.Lock(t.Context(), s.key("sample"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	bound := time.Now().Add(L - executor.SafetyMargin(L)) // a fixed lease ends by then
	defer l.Release(context.WithoutCancel(t.Context()))
	ctx, cancel := l.Context(t.Context())
	defer cancel()

	stop := busyLoops()
	defer stop()
	var lastHeld atomic.Int64
	sampled := make(chan error, 1)
	go func() { sampled <- sample(l, ctx, &lastHeld, time.Now().Add(3*L+5*time.Second)) }()

	if mode == "watchdog" {
		time.Sleep(L / 2) // a renewal or keep-alive or two
	}
	for _, srv := range srvs {
		if err := srv.Pause(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = srv.Resume() }()
	}
	if mode == "watchdog" {
		// The last renewal confirmed was sent before the pause.
		bound = time.Now().Add(L - executor.SafetyMargin(L))
	}
	err = <-sampled
	stop()
	if err == nil {
		t.Fatalf("%s/%s: the lock was still held %v after the pause", e.kind, mode, 3*L+5*time.Second)
	}
	if !errors.Is(err, lock4go.ErrLockLost) {
		t.Fatalf("%s/%s: Err = %v, want ErrLockLost", e.kind, mode, err)
	}
	last := time.Unix(0, lastHeld.Load())
	if !last.Before(bound) {
		t.Errorf("%s/%s: Err answered \"held\" %v past the lock's local end", e.kind, mode, last.Sub(bound))
	}
	select {
	case <-l.Done():
	case <-time.After(time.Second):
		t.Errorf("%s/%s: Done not closed a second after Err answered lost", e.kind, mode)
	}
	t.Logf("%s/%s: last held answer %v before the local end's bound; %v", e.kind, mode, bound.Sub(last).Round(time.Microsecond), err)
}

// sample asks l.Err and ctx.Err in turn, after reading the clock, until
// one answers or until passes; it records the time of the last "held"
// answer in lastHeld and returns the first error.
func sample(l *lock4go.Lock, ctx context.Context, lastHeld *atomic.Int64, until time.Time) error {
	for i := 0; ; i++ {
		now := time.Now()
		err := l.Err()
		if i%2 == 1 {
			if err = ctx.Err(); err != nil {
				err = context.Cause(ctx)
			}
		}
		if err != nil {
			return err
		}
		lastHeld.Store(now.UnixNano())
		if now.After(until) {
			return nil
		}
	}
}

// busyLoops keeps every core busy with a spinning goroutine until the
// returned function is called.
func busyLoops() (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			for n := 0; !done.Load(); n++ {
			}
		})
	}
	return sync.OnceFunc(func() { done.Store(true); wg.Wait() })
}
