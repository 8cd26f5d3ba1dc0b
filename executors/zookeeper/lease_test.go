package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
)

// TestLease_Lost_nodeDeleted deletes a held lease's node behind its back
// while the executor is busy with another key: Lost must close.
func TestLease_Lost_nodeDeleted(t *testing.T) {
	addr := server(t)
	e := newExecutor(t, dial(t, testSession, addr), Options{})
	admin := dial(t, testSession, addr)
	key := "deleted:" + t.Name()
	l, err := e.Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatal(err)
	}
	lost := lostAt(l)

	// Acquisitions keep the monitor's wake channel busy. They stop between
	// two calls, never by cancelling one: a cancelled Acquire returns while
	// its attempt still talks to ZooKeeper, and closing the conn under a
	// call in flight is a data race inside go-zookeeper v1.0.4 (request
	// returns ErrConnectionClosed, then CreateContainer reads the response
	// that recvLoop is still decoding).
	stop, busy := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(busy)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if o, err := e.Acquire(t.Context(), req(fmt.Sprintf("busy:%d", i%3), false)); err == nil {
				_ = o.Release(t.Context())
			}
		}
	}()
	defer func() { close(stop); <-busy }()

	if err := admin.Delete(l.(*lease).path, -1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lost:
	case <-time.After(5 * time.Second):
		t.Fatal("Lost not closed after the node was deleted")
	}
	if err := l.Renew(t.Context(), time.Second); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Renew = %v, want ErrLockNotHeld", err)
	}
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Release = %v, want ErrLockNotHeld", err)
	}
}

// TestLease_Release_cancelledContext releases with a context that has
// already ended: the node must still go.
func TestLease_Release_cancelledContext(t *testing.T) {
	addr := server(t)
	e := newExecutor(t, dial(t, testSession, addr), Options{})
	key := "cancelled:" + t.Name()
	l, err := e.Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Renew(t.Context(), time.Second); err != nil {
		t.Fatalf("Renew of a held lease = %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_ = l.Release(ctx) // nil or ErrBackend, depending on the race with ctx
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := e.Inspect(t.Context(), key); errors.Is(err, executor.ErrLockNotHeld) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("node still there after Release with a cancelled context")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestOptions_withDefaults(t *testing.T) {
	tests := []struct {
		base string
		ok   bool
	}{
		{"", true},
		{"/curator/lock4j", true},
		{"/a%b", true},
		{"/", false},
		{"relative", false},
		{"/a/", false},
		{"/a//b", false},
		{"/a/./b", false},
		{"/a/..", false},
		{"/zookeeper", false},
		{"/zookeeper/locks", false},
		{"/bad\x01", false},
	}
	for _, tc := range tests {
		t.Run(tc.base, func(t *testing.T) {
			o, err := Options{BasePath: tc.base}.withDefaults()
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, executor.ErrInvalidConfig)) {
				t.Fatalf("BasePath %q: %v", tc.base, err)
			}
			if err == nil && (o.Name != "zookeeper" || o.Priority != Priority || len(o.ACL) != 1 || o.Logger == nil) {
				t.Fatalf("defaults not applied: %+v", o)
			}
		})
	}
	for name, c := range map[string]*zk.Conn{"nil": nil, "typed nil": (*zk.Conn)(nil)} {
		if _, err := New(c, Options{}); !errors.Is(err, executor.ErrInvalidConfig) {
			t.Fatalf("New(%s) = %v, want ErrInvalidConfig", name, err)
		}
	}
}

// TestLease_Release_unseenDisconnect releases a lease whose connection died
// while nothing was looking, as after the holder's process was paused: its
// executor's monitor never polls here. With the default DisconnectGrace the
// lease counts as lost as soon as the connection is seen without its
// session, by Release itself or by the delete that fails with it, so
// Release must report ErrLockNotHeld and ErrLockLost (lost, not taken by
// another owner), not a backend error; with a negative
// grace a dropped connection proves nothing, and Release reports
// ErrBackend.
func TestLease_Release_unseenDisconnect(t *testing.T) {
	addr := server(t)
	for _, tc := range []struct {
		name     string
		grace    time.Duration
		seenDown bool // the conn already shows the disconnection at Release
		want     error
	}{
		{"default grace, delete fails", 0, false, executor.ErrLockNotHeld},
		{"default grace, conn down", 0, true, executor.ErrLockNotHeld},
		{"no grace, delete fails", -1, false, executor.ErrBackend},
		{"no grace, conn down", -1, true, executor.ErrBackend},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := startProxy(t, addr)
			conn := dial(t, time.Second, proxy.Addr())
			e, err := build(conn, Options{DisconnectGrace: tc.grace}, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = e.Close() })
			l, err := e.Acquire(t.Context(), req("unseen:"+t.Name(), false))
			if err != nil {
				t.Fatal(err)
			}
			proxy.SetBlackhole(true)
			// Un-blackholed, the proxy's connections are cut: the reconnect
			// must not wait for a read timeout.
			t.Cleanup(func() { proxy.SetBlackhole(false); proxy.Cut() })
			if tc.seenDown {
				// go-zookeeper notices after two thirds of the session.
				deadline := time.Now().Add(5 * time.Second)
				for conn.State() == zk.StateHasSession {
					if time.Now().After(deadline) {
						t.Fatal("the conn never noticed the blackhole")
					}
					time.Sleep(10 * time.Millisecond)
				}
			}
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
			defer cancel()
			err = l.Release(ctx)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Release = %v, want %v", err, tc.want)
			}
			if lost := errors.Is(err, executor.ErrLockLost); lost != (tc.want == executor.ErrLockNotHeld) {
				t.Fatalf("Release = %v: wraps ErrLockLost %v, want it with ErrLockNotHeld only (the session took the lock)", err, lost)
			}
			if l.Release(t.Context()) == nil {
				t.Fatal("second Release succeeded")
			}
		})
	}
}

// TestAcquire_aloneToken: an uncontended lock's token and session come from
// its create's reply, not from a read of the node: they must be the node's
// creation zxid and ephemeral owner as the server tells them.
func TestAcquire_aloneToken(t *testing.T) {
	addr := server(t)
	conn := dial(t, testSession, addr)
	e := newExecutor(t, conn, Options{})
	admin := dial(t, testSession, addr)
	for i := range 20 {
		l, err := e.Acquire(t.Context(), req(fmt.Sprintf("alone:%d", i%2), false))
		if err != nil {
			t.Fatal(err)
		}
		ls := l.(*lease)
		ok, st, err := admin.Exists(ls.path)
		if err != nil || !ok {
			t.Fatalf("Exists(%s) = %v, %v", ls.path, ok, err)
		}
		if l.Token() != st.Czxid || ls.session != st.EphemeralOwner || ls.session != conn.SessionID() {
			t.Fatalf("lease token %d, session %#x; node czxid %d, owner %#x; conn session %#x", l.Token(), ls.session, st.Czxid, st.EphemeralOwner, conn.SessionID())
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMonitor_watchNew_gone: the first watch of a lease granted without
// one finds its node gone (deleted before the read): the lease is lost,
// and no watch is left on the path.
func TestMonitor_watchNew_gone(t *testing.T) {
	addr := server(t)
	conn := dial(t, testSession, addr)
	e := newExecutor(t, conn, Options{})
	l := newLease(e, "gone", "/lock4go-test-gone/_c_x-lock-0000000001", &zk.Stat{Czxid: 1, EphemeralOwner: conn.SessionID()}, nil, time.Now())
	if !e.mon.add(l) {
		t.Fatal("monitor closed")
	}
	lost := lostAt(l)
	e.mon.watchNew(l)
	select {
	case <-lost:
	case <-time.After(5 * time.Second):
		t.Fatal("lease not lost after its first watch found no node")
	}
	if err := l.LostCause(); err == nil || !strings.Contains(err.Error(), "deleted") {
		t.Fatalf("LostCause = %v, want a deleted node", err)
	}
}
