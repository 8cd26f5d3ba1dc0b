package executortest

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testwait"
)

// closeBound is the longest Close may take against a healthy backend in
// the suite: a clean-up round trip per held lease, with room for a busy
// machine.
const closeBound = 10 * time.Second

// testClose checks the Close contract (package executor, "Close"): calls
// after Close fail with ErrClosed, a waiter inside Acquire returns it at
// once, held leases are reported lost with ErrClosed as the cause and
// released on the backend long before their TTL, and a second Close
// returns at once.
func (s *suite) testClose(t *testing.T) {
	a, b := s.f(t), s.f(t)
	c, ok := a.(io.Closer)
	if !ok {
		t.Fatalf("%T has no Close method", a)
	}
	sc := s.closeScene(t, a, b)
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v, want nil against a healthy backend", err)
	}
	if took := time.Since(start); took > closeBound {
		t.Errorf("Close took %v, want at most %v", took, closeBound)
	}
	for i, l := range sc.held {
		s.checkClosedLease(t, l, sc.lost[i])
	}
	select {
	case err := <-sc.waited:
		if !errors.Is(err, executor.ErrClosed) {
			t.Errorf("waiter inside Acquire when Close began returned %v, want ErrClosed", err)
		}
	case <-time.After(s.o.Settle):
		t.Fatalf("waiter inside Acquire still waiting %v after Close", s.o.Settle)
	}
	s.checkClosedCalls(t, a, sc.kWait)
	start = time.Now()
	if err := c.Close(); err != nil || time.Since(start) > time.Second {
		t.Errorf("second Close = %v after %v, want nil at once", err, time.Since(start))
	}
	// The memory executor is its own backend: both calls returned one
	// table, and nothing outside a can observe its releases.
	if a != b {
		s.checkReleased(t, b, sc)
	}
}

// closeScene is what testClose sets up before Close: two leases of the
// executor to close (a watchdog lease and a fixed one), with their
// AfterLost signals, and a waiter of it behind a holder of the other.
type closeScene struct {
	keys    []string // of held
	held    []executor.Lease
	lost    []<-chan struct{}
	kWait   string
	blocker executor.Lease
	waited  chan error
}

// closeScene sets up a closeScene on a, with b as the other executor.
func (s *suite) closeScene(t *testing.T, a, b executor.Executor) *closeScene {
	sc := &closeScene{keys: []string{s.key(t), s.key(t)}, kWait: s.key(t), waited: make(chan error, 1)}
	watchdog := s.req(sc.keys[0], 0, false)
	watchdog.Renewed = true
	sc.held = []executor.Lease{mustAcquire(t, a, watchdog), mustAcquire(t, a, s.req(sc.keys[1], 0, false))}
	sc.lost = []<-chan struct{}{Lost(sc.held[0]), Lost(sc.held[1])}
	sc.blocker = mustAcquire(t, b, s.req(sc.kWait, 0, false))
	t.Cleanup(func() { _ = sc.blocker.Release(context.Background()) })
	mustNotAcquire(t, a, s.req(sc.kWait, 0, false))
	go func() {
		l, err := acquireBlocking(t.Context(), a, s.req(sc.kWait, 0, true))
		if err == nil {
			_ = l.Release(context.WithoutCancel(t.Context()))
		}
		sc.waited <- err
	}()
	s.awaitWaiter(t, b, sc.kWait)
	return sc
}

// checkReleased checks, through b, that Close released the leases of sc
// on the backend: b takes their keys long before their 30s TTL, and the
// closed executor's waiter left the queue.
func (s *suite) checkReleased(t *testing.T, b executor.Executor, sc *closeScene) {
	t.Helper()
	for _, k := range sc.keys {
		if !testwait.Until(s.o.Settle, func() bool { return tryOnce(t, b, k) }) {
			t.Errorf("%s not free %v after Close: Close did not release it", k, s.o.Settle)
		}
	}
	if err := sc.blocker.Release(t.Context()); err != nil {
		t.Fatalf("Release by the other executor = %v", err)
	}
	if !testwait.Until(s.o.Settle, func() bool { return tryOnce(t, b, sc.kWait) }) {
		t.Errorf("%s not free %v after its holder released it: the closed executor's waiter stayed in its queue", sc.kWait, s.o.Settle)
	}
}

// awaitWaiter waits, within the settle time, until the executor shows a
// waiter of k, if it can tell; the checks that follow hold either way.
func (s *suite) awaitWaiter(t *testing.T, e executor.Executor, k string) {
	in, ok := e.(executor.Inspector)
	if !ok {
		return
	}
	testwait.Until(s.o.Settle, func() bool {
		h, err := in.Inspect(t.Context(), k)
		return err != nil || h.Waiters != 0
	})
}

// checkClosedLease checks a lease held when its executor closed: reported
// lost (lost is its AfterLost signal) with ErrClosed as the cause, and no
// longer renewable or releasable.
func (s *suite) checkClosedLease(t *testing.T, l executor.Lease, lost <-chan struct{}) {
	t.Helper()
	select {
	case <-lost:
	case <-time.After(s.o.Settle):
		t.Errorf("lease of token %d held at Close: AfterLost did not run within %v", l.Token(), s.o.Settle)
	}
	if cause := executor.LostCause(l); !errors.Is(cause, executor.ErrClosed) {
		t.Errorf("lease of token %d held at Close: LostCause = %v, want ErrClosed", l.Token(), cause)
	}
	if err := l.Renew(t.Context(), 30*time.Second); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Errorf("Renew after Close = %v, want ErrLockNotHeld", err)
	}
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Errorf("Release after Close = %v, want ErrLockNotHeld", err)
	}
}

// checkClosedCalls checks the calls on a closed executor: ErrClosed at
// once, never ErrBackend or ErrNotAcquired, and a release watch that is
// ready at once.
func (s *suite) checkClosedCalls(t *testing.T, e executor.Executor, k string) {
	t.Helper()
	closed := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, executor.ErrClosed) || errors.Is(err, executor.ErrBackend) || errors.Is(err, executor.ErrNotAcquired) {
			t.Errorf("%s after Close = %v, want ErrClosed alone", what, err)
		}
	}
	for _, wait := range []bool{false, true} {
		l, err := e.Acquire(t.Context(), s.req(s.key(t), 0, wait))
		if err == nil {
			_ = l.Release(t.Context())
		}
		closed("Acquire", err)
	}
	if w, ok := e.(executor.Waiter); ok {
		ch, stop := w.WatchRelease(t.Context(), k)
		select {
		case <-ch:
		case <-time.After(time.Second):
			t.Error("WatchRelease after Close: the channel is not ready")
		}
		stop()
	}
	if in, ok := e.(executor.Inspector); ok {
		_, err := in.Inspect(t.Context(), k)
		closed("Inspect", err)
	}
	if fr, ok := e.(executor.ForceReleaser); ok {
		closed("ForceRelease", fr.ForceRelease(t.Context(), k, executor.Holder{Owner: owner(), Token: 1}))
	}
}
