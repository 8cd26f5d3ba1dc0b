package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/testlog"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
)

// newProxy returns a proxy in front of the server, closed at the end of
// the test.
func newProxy(t *testing.T) *testserver.Proxy {
	t.Helper()
	p, err := testserver.NewProxy(server(t).Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// held reports whether key is held, by a fresh executor's Inspect.
func held(t *testing.T, e *postgres.Executor, key string) bool {
	t.Helper()
	_, err := e.Inspect(t.Context(), key)
	if err != nil && !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Inspect(%q) = %v", key, err)
	}
	return err == nil
}

// TestAcquire_lostReply: an acquisition whose reply the proxy drops fails,
// the executor voids its owner in the background (the row it took is
// freed), and the same owner's statement, should it land again, takes
// nothing.
func TestAcquire_lostReply(t *testing.T) {
	p := newProxy(t)
	e := newExecutor(t, newPool(t, p.Addr()), postgres.Options{})
	observer := direct(t)
	key := uniq(t, "lost:")
	warm := req(key+":warm", time.Minute)
	if l, err := e.Acquire(t.Context(), warm); err != nil {
		t.Fatal(err)
	} else if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	p.SetDropReplies(true)
	r := req(key, time.Minute)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	l, err := e.Acquire(ctx, r)
	cancel()
	if err == nil {
		_ = l.Release(t.Context())
		t.Fatal("Acquire succeeded with its reply dropped")
	}
	if !errors.Is(err, executor.ErrBackend) && !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("Acquire = %v, want ErrBackend or ErrNotAcquired", err)
	}
	wasHeld := held(t, observer, key)
	p.SetDropReplies(false)
	p.Cut()
	if !testwait.Until(10*time.Second, func() bool { return !held(t, observer, key) }) {
		t.Fatal("the lost acquisition's row is still held 10s later: not voided")
	}
	t.Logf("the dropped acquisition was granted on the server: %v; voided since", wasHeld)
	// The same owner again, as a late copy of the statement would be.
	if l, err := observer.Acquire(t.Context(), r); err == nil {
		_ = l.Release(t.Context())
		t.Fatal("the voided owner took the key")
	} else if !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("Acquire with the voided owner = %v, want ErrNotAcquired", err)
	}
	if held(t, observer, key) {
		t.Fatal("the voided owner's statement left the key held")
	}
}

// TestTokens_takeoverAndRestart: tokens keep increasing when an expired
// lease's row is taken over and across a crash and restart of the server.
func TestTokens_takeoverAndRestart(t *testing.T) {
	s := server(t)
	a, b := direct(t), direct(t)
	key := uniq(t, "tokens:")
	first, err := a.Acquire(t.Context(), req(key, 100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	var next executor.Lease
	if !testwait.Until(5*time.Second, func() bool {
		next, err = b.Acquire(t.Context(), req(key, time.Minute))
		return err == nil
	}) {
		t.Fatalf("the expired lease was not taken over: %v", err)
	}
	if next.Token() <= first.Token() {
		t.Fatalf("token after a takeover %d, want > %d", next.Token(), first.Token())
	}
	if err := first.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Release of the expired lease = %v, want ErrLockNotHeld", err)
	}
	if err := next.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	c := direct(t)
	var after executor.Lease
	if !testwait.Until(10*time.Second, func() bool {
		after, err = c.Acquire(t.Context(), req(key, time.Minute))
		return err == nil
	}) {
		t.Fatalf("no acquisition after the restart: %v", err)
	}
	defer after.Release(context.WithoutCancel(t.Context()))
	if after.Token() <= next.Token() {
		t.Fatalf("token after a restart %d, want > %d", after.Token(), next.Token())
	}
}

// TestWatchRelease_reconnect: when the LISTEN connection is cut, the
// executor listens again and wakes its waiters (a wake may have been
// missed); a waiter still gets the key by polling meanwhile.
func TestWatchRelease_reconnect(t *testing.T) {
	p := newProxy(t)
	e := newExecutor(t, newPool(t, server(t).Addr()), optionsListen(testserver.PostgresDSN(p.Addr())))
	holder := direct(t)
	key := uniq(t, "reconnect:")
	l, err := holder.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(context.WithoutCancel(t.Context()))
	r := req(key, time.Minute)
	r.Wait = true
	if _, err := e.Acquire(t.Context(), r); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("waiting Acquire = %v, want ErrNotAcquired", err)
	}
	released, stop := e.WatchRelease(t.Context(), key)
	defer stop()
	<-released // the first watch fires at once
	p.Cut()
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("no wake after the LISTEN connection was cut and came back")
	}
}

// TestListen_probeThroughPgBouncer: a LISTEN connection that goes through
// PgBouncer in transaction mode (no ListenDSN, a pool on PgBouncer)
// receives nothing, and the executor says so.
func TestListen_probeThroughPgBouncer(t *testing.T) {
	log, warned := testlog.Signal(t, "did not reach the LISTEN connection")
	e := newExecutor(t, newPool(t, pgBouncer(t).Addr()), postgres.Options{Logger: log})
	_, stop := e.WatchRelease(t.Context(), uniq(t, "probe:"))
	defer stop()
	select {
	case <-warned:
	case <-time.After(10 * time.Second):
		t.Fatal("no warning that notifications do not arrive")
	}
}

// TestSweep: what a crashed process left (an expired lease, an expired
// queue entry) is removed by a sweep; a key whose holder died while
// another process waits is handed to that waiter.
func TestSweep(t *testing.T) {
	dead, live := direct(t), direct(t)
	key, orphan := uniq(t, "sweep:"), uniq(t, "sweep-orphan:")
	const lease = time.Second
	if _, err := dead.Acquire(t.Context(), req(orphan, lease)); err != nil {
		t.Fatal(err)
	}
	if _, err := dead.Acquire(t.Context(), req(key, lease)); err != nil {
		t.Fatal(err)
	}
	w := req(key, time.Minute)
	w.Wait = true
	if _, err := live.Acquire(t.Context(), w); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("waiting Acquire = %v, want ErrNotAcquired", err)
	}
	released, stop := live.WatchRelease(t.Context(), key)
	defer stop()
	<-released // the first watch fires at once
	if !testwait.Until(10*time.Second, func() bool { return !held(t, live, key) && !held(t, live, orphan) }) {
		t.Fatal("the dead holder's leases did not expire")
	}
	if err := dead.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := rows(t, orphan); n != 0 {
		t.Fatalf("%d rows of an expired lease left after a sweep", n)
	}
	select {
	case <-released:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter was not woken when the sweep handed it the dead holder's key")
	}
	l, err := live.Acquire(t.Context(), w)
	if err != nil {
		t.Fatalf("the woken waiter's Acquire = %v", err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := rows(t, key); n != 0 {
		t.Fatalf("%d rows left after the release", n)
	}
}
