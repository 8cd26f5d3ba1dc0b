package zookeeper

import (
	"context"
	"errors"
	"log/slog"
	"path"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/internal/testlog"
)

// Sessions without the digest identity of a base path's ACL get
// ErrBackend wrapping zk.ErrNoAuth on every attempt, waiting or not, on a
// held key and on a new one, and leave no node and no background deletion
// behind. ZooKeeper's digest scheme never rejects credentials: a wrong
// password is just another identity, so DigestAuth itself succeeds.
func TestFailClosed_noAuth(t *testing.T) {
	addr := server(t)
	ownerConn := dial(t, testSession, addr)
	base := aclBasePath(t, ownerConn)
	acl, err := DigestAuth(t.Context(), ownerConn, "lock4go", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	owner := newExecutor(t, ownerConn, Options{BasePath: base, ACL: acl})
	held := "held"
	l, err := owner.Acquire(t.Context(), req(held, false))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(context.WithoutCancel(t.Context()))
	for _, tc := range []struct {
		name, user, password string
	}{
		{"wrong password", "lock4go", "wrong"},
		{"another user", "other", "s3cret"},
		{"no credentials", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn := dial(t, testSession, addr)
			o := Options{BasePath: base}
			if tc.user != "" {
				var err error
				if o.ACL, err = DigestAuth(t.Context(), conn, tc.user, tc.password); err != nil {
					t.Fatalf("DigestAuth with %s: %v", tc.name, err)
				}
			}
			e := newExecutor(t, conn, o)
			for _, key := range []string{held, "new"} {
				for _, wait := range []bool{false, true} {
					l, err := e.Acquire(t.Context(), req(key, wait))
					if err == nil {
						_ = l.Release(t.Context())
						t.Fatalf("Acquire(%q, wait %v) returned a lease", key, wait)
					}
					if !errors.Is(err, executor.ErrBackend) || !errors.Is(err, zk.ErrNoAuth) {
						t.Fatalf("Acquire(%q, wait %v) = %v, want ErrBackend wrapping zk.ErrNoAuth", key, wait, err)
					}
				}
			}
			if n := e.stats.voids.Load(); n != 0 {
				t.Errorf("%d background deletions after refused creates, want 0", n)
			}
			children, _, err := ownerConn.Children(owner.keyPath(held))
			if err != nil || len(children) != 1 {
				t.Fatalf("lock parent holds %v (%v), want the holder's node only", children, err)
			}
		})
	}
}

// Digest credentials cannot be taken from a live session, so the closest
// to revoking them while a lock is held is an ACL change: the lock parent
// loses DELETE for the holder's identity. The lock stays held (the session
// needs no permission, and the node stays), Release is refused with
// ErrBackend wrapping zk.ErrNoAuth, and the deletion is retried in the
// background with backoff and one log line until the permission is back.
func TestFailClosed_deleteRevokedWhileHeld(t *testing.T) {
	addr := server(t)
	const session = 2 * time.Second
	conn := dial(t, session, addr)
	base := aclBasePath(t, conn)
	acl, err := DigestAuth(t.Context(), conn, "lock4go", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	log := &testlog.Recorder{}
	e := newExecutor(t, conn, Options{BasePath: base, ACL: acl, SessionTimeout: session, Logger: slog.New(log)})
	l, err := e.Acquire(t.Context(), req("k", false))
	if err != nil {
		t.Fatal(err)
	}
	admin := dial(t, testSession, addr)
	if _, err := DigestAuth(t.Context(), admin, "lock4go", "s3cret"); err != nil {
		t.Fatal(err)
	}
	parent := e.keyPath("k")
	noDelete := zk.DigestACL(zk.PermRead|zk.PermWrite|zk.PermCreate|zk.PermAdmin, "lock4go", "s3cret")
	if _, err := admin.SetACL(parent, noDelete, -1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-executortest.Lost(l):
		t.Fatal("lock lost after its parent's ACL changed")
	case <-time.After(session + session/4): // the session outlives its timeout
	}
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrBackend) || !errors.Is(err, zk.ErrNoAuth) {
		t.Fatalf("Release without DELETE = %v, want ErrBackend wrapping zk.ErrNoAuth", err)
	}
	if children, _, err := admin.Children(parent); err != nil || len(children) != 1 {
		t.Fatalf("lock parent holds %v (%v), want the node still there", children, err)
	}
	if _, err := admin.SetACL(parent, acl, -1); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		children, _, err := admin.Children(parent)
		if err == nil && len(children) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node not deleted after DELETE was granted back: %v %v", children, err)
		}
	}
	if n := log.Count("zookeeper: retrying node deletion in the background"); n != 1 {
		t.Errorf("refused deletion logged %d times, want 1", n)
	}
}

// aclBasePath returns a fresh base path for a test that gives it a
// restrictive ACL. It creates the base path's parent first, with the world
// ACL, so that only the test's own node gets the restrictive one and tests
// that run later can still create their base paths beside it.
func aclBasePath(t *testing.T, conn *zk.Conn) string {
	t.Helper()
	base := basePath(t)
	_, err := conn.Create(path.Dir(base), nil, 0, zk.WorldACL(zk.PermAll))
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		t.Fatal(err)
	}
	return base
}
