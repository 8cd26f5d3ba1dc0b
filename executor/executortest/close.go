package executortest

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
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
	// The memory executor is its own backend: both calls return one
	// table, and nothing outside a can observe its releases.
	oneTable := a == b
	kWatchdog, kFixed, kWait := s.key(t), s.key(t), s.key(t)
	watchdog := s.req(kWatchdog, 0, false)
	watchdog.Renewed = true
	held := []executor.Lease{mustAcquire(t, a, watchdog), mustAcquire(t, a, s.req(kFixed, 0, false))}
	lost := []<-chan struct{}{Lost(held[0]), Lost(held[1])}

	blocker := mustAcquire(t, b, s.req(kWait, 0, false))
	defer blocker.Release(context.WithoutCancel(t.Context()))
	mustNotAcquire(t, a, s.req(kWait, 0, false))
	waited := make(chan error, 1)
	go func() {
		l, err := acquireBlocking(t.Context(), a, s.req(kWait, 0, true))
		if err == nil {
			_ = l.Release(context.WithoutCancel(t.Context()))
		}
		waited <- err
	}()
	s.awaitWaiter(t, b, kWait)

	start := time.Now()
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v, want nil against a healthy backend", err)
	}
	if took := time.Since(start); took > closeBound {
		t.Errorf("Close took %v, want at most %v", took, closeBound)
	}
	for i, l := range held {
		s.checkClosedLease(t, l, lost[i])
	}
	select {
	case err := <-waited:
		if !errors.Is(err, executor.ErrClosed) {
			t.Errorf("waiter inside Acquire when Close began returned %v, want ErrClosed", err)
		}
	case <-time.After(s.o.Settle):
		t.Fatalf("waiter inside Acquire still waiting %v after Close", s.o.Settle)
	}
	s.checkClosedCalls(t, a, kWait)
	start = time.Now()
	if err := c.Close(); err != nil || time.Since(start) > time.Second {
		t.Errorf("second Close = %v after %v, want nil at once", err, time.Since(start))
	}
	if oneTable {
		return
	}
	// Released on the backend: another executor takes the keys long before
	// their 30s TTL, and a's waiter left the queue.
	for _, k := range []string{kWatchdog, kFixed} {
		if !eventually(s.o.Settle, func() bool { return tryOnce(t, b, k) }) {
			t.Errorf("%s not free %v after Close: Close did not release it", k, s.o.Settle)
		}
	}
	if err := blocker.Release(t.Context()); err != nil {
		t.Fatalf("Release by the other executor = %v", err)
	}
	if !eventually(s.o.Settle, func() bool { return tryOnce(t, b, kWait) }) {
		t.Errorf("%s not free %v after its holder released it: the closed executor's waiter stayed in its queue", kWait, s.o.Settle)
	}
}

// awaitWaiter waits, within the settle time, until the executor shows a
// waiter of k, if it can tell; the checks that follow hold either way.
func (s *suite) awaitWaiter(t *testing.T, e executor.Executor, k string) {
	in, ok := e.(executor.Inspector)
	if !ok {
		return
	}
	eventually(s.o.Settle, func() bool {
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
