package zookeeper

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testserver"
)

// startServer starts a ZooKeeper server for this test alone, for tests that
// pause or kill it. javaOpts, if set, go to the JVM through
// JAVA_TOOL_OPTIONS.
func startServer(t *testing.T, javaOpts string) *testserver.Server {
	t.Helper()
	server(t) // skip early when ZooKeeper is not installed
	if javaOpts != "" {
		t.Setenv("JAVA_TOOL_OPTIONS", javaOpts)
	}
	s, err := testserver.StartZooKeeper()
	testserver.Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

// startProxy returns a fault proxy in front of addr, closed at the end of
// the test (after the conns through it, registered later).
func startProxy(t *testing.T, addr string) *testserver.Proxy {
	t.Helper()
	p, err := testserver.NewProxy(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// lostAt returns a channel that receives the time l is lost.
func lostAt(l executor.Lease) <-chan time.Time {
	ch := make(chan time.Time, 1)
	l.AfterLost(func() { ch <- time.Now() })
	return ch
}

// waitAcquire starts a waiting Acquire and returns channels for its
// outcome and the time it got the lease.
type acquisition struct {
	l   executor.Lease
	at  time.Time
	err error
}

func acquireAsync(ctx context.Context, e *Executor, key string) <-chan acquisition {
	ch := make(chan acquisition, 1)
	go func() {
		l, err := e.Acquire(ctx, req(key, true))
		ch <- acquisition{l, time.Now(), err}
	}()
	return ch
}

// awaitWaiting polls until n of e's Acquire calls wait on a predecessor
// watch.
func awaitWaiting(t *testing.T, e *Executor, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for e.stats.waiting.Load() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d Acquire calls waiting, want %d", e.stats.waiting.Load(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestExecutor_sessionExpiry cuts the holder off behind a blackholed proxy
// until the server expires its session; a waiter on another session then
// acquires. With the default DisconnectGrace the holder learns of the loss
// before the waiter gets the lock; with a negative grace only once it
// reconnects and hears that its session expired.
func TestExecutor_sessionExpiry(t *testing.T) {
	addr := server(t)
	for _, tc := range []struct {
		name      string
		grace     time.Duration
		lostFirst bool
	}{
		{"default grace", 0, true},
		{"no grace", -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := startProxy(t, addr)
			holder := newExecutor(t, dial(t, time.Second, proxy.Addr()), Options{DisconnectGrace: tc.grace})
			waiter := newExecutor(t, dial(t, testSession, addr), Options{})
			key := "expiry:" + t.Name()
			l, err := holder.Acquire(t.Context(), req(key, false))
			if err != nil {
				t.Fatal(err)
			}
			lost := lostAt(l)
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			acq := acquireAsync(ctx, waiter, key)
			awaitWaiters(t, waiter, key, 1)

			cutAt := time.Now()
			proxy.SetBlackhole(true)
			var lostTime time.Time
			if tc.lostFirst {
				select {
				case lostTime = <-lost:
				case <-time.After(5 * time.Second):
					t.Fatal("holder's Lost not closed after its connection went silent")
				}
				t.Logf("holder lost the lease %v after the cut", lostTime.Sub(cutAt).Round(time.Millisecond))
			}
			a := <-acq
			if a.err != nil {
				t.Fatalf("waiter: %v", a.err)
			}
			defer a.l.Release(context.WithoutCancel(t.Context()))
			t.Logf("waiter acquired %v after the cut", a.at.Sub(cutAt).Round(time.Millisecond))
			if a.l.Token() <= l.Token() {
				t.Fatalf("waiter's token %d, holder's %d", a.l.Token(), l.Token())
			}
			if !tc.lostFirst {
				select {
				case <-lost:
					t.Fatal("Lost closed while the client could not know (negative grace)")
				default:
				}
				proxy.SetBlackhole(false)
				proxy.Cut() // reconnect now, rather than after go-zookeeper's read timeout
				select {
				case lostTime = <-lost:
				case <-time.After(10 * time.Second):
					t.Fatal("holder's Lost not closed after reconnecting to an expired session")
				}
			} else if !lostTime.Before(a.at) {
				t.Fatalf("holder lost at %v, after the waiter acquired at %v", lostTime, a.at)
			}
			if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) || !errors.Is(err, executor.ErrLockLost) {
				t.Fatalf("Release of the lost lease = %v, want ErrLockNotHeld and ErrLockLost", err)
			}
			if err := l.Renew(t.Context(), time.Second); !errors.Is(err, executor.ErrLockNotHeld) {
				t.Fatalf("Renew of the lost lease = %v, want ErrLockNotHeld", err)
			}
		})
	}
}

// TestExecutor_Acquire_lostCreateReply drops the reply to the lock node's
// create, then cuts the connection: the executor must adopt the node it
// created (found by GUID) rather than create a second one.
func TestExecutor_Acquire_lostCreateReply(t *testing.T) {
	addr := server(t)
	proxy := startProxy(t, addr)
	e := newExecutor(t, dial(t, testSession, proxy.Addr()), Options{})
	observer := dial(t, testSession, addr)
	key := "protected:" + t.Name()
	parent := e.keyPath(key)
	warm, err := e.Acquire(t.Context(), req(key, false)) // creates the parent
	if err != nil {
		t.Fatal(err)
	}
	if err := warm.Release(t.Context()); err != nil {
		t.Fatal(err)
	}

	proxy.SetDropReplies(true)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	res := make(chan acquisition, 1)
	go func() {
		l, err := e.Acquire(ctx, req(key, false))
		res <- acquisition{l: l, err: err}
	}()
	var created []string
	for deadline := time.Now().Add(5 * time.Second); len(created) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the create never reached the server")
		}
		time.Sleep(5 * time.Millisecond)
		if created, _, err = observer.Children(parent); err != nil {
			t.Fatal(err)
		}
	}
	proxy.SetDropReplies(false)
	proxy.Cut()
	a := <-res
	if a.err != nil {
		t.Fatalf("Acquire after a lost create reply = %v", a.err)
	}
	children, _, err := observer.Children(parent)
	if err != nil {
		t.Fatal(err)
	}
	if len(children) != 1 || len(created) != 1 || parent+"/"+children[0] != a.l.(*lease).path || children[0] != created[0] {
		t.Fatalf("created %v, now %v, lease on %s: want the one created node adopted", created, children, a.l.(*lease).path)
	}
	if err := a.l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestExecutor_Acquire_cancelWhileDisconnected gives up a wait while the
// connection is down: the node's deletion must go on in the background
// until it succeeds, so the queue does not stall behind it.
func TestExecutor_Acquire_cancelWhileDisconnected(t *testing.T) {
	addr := server(t)
	proxy := startProxy(t, addr)
	holder := newExecutor(t, dial(t, testSession, addr), Options{})
	waiter := newExecutor(t, dial(t, testSession, proxy.Addr()), Options{DisconnectGrace: -1})
	key := "abandon:" + t.Name()
	l, err := holder.Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	acq := acquireAsync(ctx, waiter, key)
	awaitWaiting(t, waiter, 1)
	proxy.SetBlackhole(true)
	cancel()
	if a := <-acq; !errors.Is(a.err, executor.ErrNotAcquired) {
		t.Fatalf("cancelled wait = %v, want ErrNotAcquired", a.err)
	}
	time.Sleep(300 * time.Millisecond) // the delete is stuck behind the blackhole
	if h, err := holder.Inspect(t.Context(), key); err != nil || h.Waiters != 1 {
		t.Fatalf("before the reconnect: %+v, %v; want the abandoned node still queued", h, err)
	}
	proxy.SetBlackhole(false)
	proxy.Cut() // its reply will never come: the conn reconnects
	awaitWaiters(t, holder, key, 0)
	if n := waiter.stats.voids.Load(); n != 1 {
		t.Fatalf("%d background deletions, want 1", n)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	next, err := holder.Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatalf("key stuck after the abandoned wait: %v", err)
	}
	_ = next.Release(t.Context())
}

// TestExecutor_serverPaused stops the server past the session timeout: the
// holder must learn it lost the lock; once the server is back the key must
// not stay stuck.
func TestExecutor_serverPaused(t *testing.T) {
	srv := startServer(t, "")
	e := newExecutor(t, dial(t, time.Second, srv.Addr()), Options{})
	key := "paused:" + t.Name()
	l, err := e.Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatal(err)
	}
	lost := lostAt(l)
	paused := time.Now()
	if err := srv.Pause(); err != nil {
		t.Fatal(err)
	}
	select {
	case at := <-lost:
		t.Logf("Lost closed %v after the pause", at.Sub(paused).Round(time.Millisecond))
	case <-time.After(5 * time.Second):
		_ = srv.Resume()
		t.Fatal("holder's Lost not closed while the server is paused")
	}
	time.Sleep(1500 * time.Millisecond) // past the session timeout
	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Release of the lost lease = %v, want ErrLockNotHeld", err)
	}
	other := newExecutor(t, dial(t, testSession, srv.Addr()), Options{})
	deadline := time.Now().Add(10 * time.Second)
	for {
		next, err := other.Acquire(t.Context(), req(key, false))
		if err == nil {
			_ = next.Release(t.Context())
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("key still held after the server resumed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestExecutor_serverKilled kills the server while a waiter waits: Acquire
// must fail within its deadline, not hang.
func TestExecutor_serverKilled(t *testing.T) {
	srv := startServer(t, "")
	holder := newExecutor(t, dial(t, time.Second, srv.Addr()), Options{})
	waiter := newExecutor(t, dial(t, time.Second, srv.Addr()), Options{})
	key := "killed:" + t.Name()
	if _, err := holder.Acquire(t.Context(), req(key, false)); err != nil {
		t.Fatal(err)
	}
	const timeout = 2 * time.Second
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	start := time.Now()
	acq := acquireAsync(ctx, waiter, key)
	awaitWaiters(t, holder, key, 1)
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-acq:
		if !errors.Is(a.err, executor.ErrNotAcquired) && !errors.Is(a.err, executor.ErrBackend) {
			t.Fatalf("Acquire = %v, want ErrNotAcquired or ErrBackend", a.err)
		}
		t.Logf("Acquire failed after %v: %v", time.Since(start).Round(time.Millisecond), a.err)
	case <-time.After(timeout + time.Second):
		t.Fatal("Acquire hangs after the server died")
	}
}

// TestExecutor_containerParents checks that a key's parent is a container
// ZooKeeper removes once its queue is empty, and that the key can be locked
// again afterwards. The server checks containers every 100ms.
func TestExecutor_containerParents(t *testing.T) {
	srv := startServer(t, "-Dznode.container.checkIntervalMs=100")
	conn := dial(t, testSession, srv.Addr())
	e := newExecutor(t, conn, Options{})
	key := "container"
	for round := range 2 {
		l, err := e.Acquire(t.Context(), req(key, false))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			ok, _, err := conn.Exists(e.keyPath(key))
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: empty lock parent %s not removed", round, e.keyPath(key))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if ok, st, err := conn.Exists(DefaultBasePath); err != nil || !ok || st.EphemeralOwner != 0 {
		t.Fatalf("base path: exists %v, %v", ok, err)
	}
}
