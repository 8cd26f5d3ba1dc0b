package zookeeper

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
)

// TestInterop_zkLock checks that go-zookeeper's zk.Lock on the key's parent
// and the executor exclude each other, both ways.
func TestInterop_zkLock(t *testing.T) {
	addr := server(t)
	e := newExecutor(t, dial(t, testSession, addr), Options{})
	key := "interop:" + t.Name()
	zl := zk.NewLock(dial(t, testSession, addr), e.keyPath(key), zk.WorldACL(zk.PermAll))

	t.Run("zk.Lock holds", func(t *testing.T) {
		if err := zl.Lock(); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Acquire(t.Context(), req(key, false)); !errors.Is(err, executor.ErrNotAcquired) {
			t.Fatalf("TryLock while zk.Lock holds = %v, want ErrNotAcquired", err)
		}
		got := make(chan executor.Lease, 1)
		errc := make(chan error, 1)
		go func() {
			l, err := e.Acquire(t.Context(), req(key, true))
			if err != nil {
				errc <- err
				return
			}
			got <- l
		}()
		awaitWaiters(t, e, key, 1)
		if err := zl.Unlock(); err != nil {
			t.Fatal(err)
		}
		select {
		case l := <-got:
			if err := l.Release(t.Context()); err != nil {
				t.Fatal(err)
			}
		case err := <-errc:
			t.Fatal(err)
		case <-time.After(10 * time.Second):
			t.Fatal("waiter not woken by zk.Lock's Unlock")
		}
	})

	t.Run("executor holds", func(t *testing.T) {
		l, err := e.Acquire(t.Context(), req(key, false))
		if err != nil {
			t.Fatal(err)
		}
		locked := make(chan error, 1)
		go func() { locked <- zl.Lock() }()
		awaitWaiters(t, e, key, 1)
		select {
		case err := <-locked:
			t.Fatalf("zk.Lock returned %v while the executor holds the key", err)
		case <-time.After(200 * time.Millisecond):
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-locked:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("zk.Lock not granted after the executor released")
		}
		if h, err := e.Inspect(t.Context(), key); err != nil || h.Owner != "" {
			t.Fatalf("Inspect while zk.Lock holds = %+v, %v", h, err)
		}
		if err := zl.Unlock(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestExecutor_parents checks the node types: a persistent base path, a
// container lock parent, an ephemeral lock node owned by the session.
func TestExecutor_parents(t *testing.T) {
	addr := server(t)
	conn := dial(t, testSession, addr)
	base := basePath(t)
	e := newExecutor(t, conn, Options{BasePath: base})
	key := "a/b"
	l, err := e.Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(context.WithoutCancel(t.Context()))
	for _, tc := range []struct {
		path  string
		owner int64
	}{
		{base, 0},
		{base + "/a%2Fb", 0}, // a container: clients see no owner
		{l.(*lease).path, conn.SessionID()},
	} {
		ok, st, err := conn.Exists(tc.path)
		if err != nil || !ok {
			t.Fatalf("Exists(%q) = %v, %v", tc.path, ok, err)
		}
		if st.EphemeralOwner != tc.owner {
			t.Errorf("%s: ephemeral owner %#x, want %#x", tc.path, st.EphemeralOwner, tc.owner)
		}
	}
}

// TestDigestAuth checks creator-only ACLs: another user can neither lock
// nor look, the same user is excluded as usual.
func TestDigestAuth(t *testing.T) {
	addr := server(t)
	base := aclBasePath(t, dial(t, testSession, addr))
	authed := func() *Executor {
		conn := dial(t, testSession, addr)
		acl, err := DigestAuth(t.Context(), conn, "lock4go", "s3cret")
		if err != nil {
			t.Fatal(err)
		}
		return newExecutor(t, conn, Options{BasePath: base, ACL: acl})
	}
	a, b := authed(), authed()
	stranger := newExecutor(t, dial(t, testSession, addr), Options{BasePath: base})
	key := "secret"
	l, err := a.Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(context.WithoutCancel(t.Context()))
	if _, err := b.Acquire(t.Context(), req(key, false)); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("same user: %v, want ErrNotAcquired", err)
	}
	if _, err := stranger.Acquire(t.Context(), req(key, false)); !errors.Is(err, executor.ErrBackend) || !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("stranger Acquire = %v, want ErrBackend wrapping zk.ErrNoAuth", err)
	}
	if _, err := stranger.Inspect(t.Context(), key); !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("stranger Inspect = %v, want zk.ErrNoAuth", err)
	}
}
