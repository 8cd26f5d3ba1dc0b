package etcd_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testlog"
	"github.com/lock4go/lock4go/internal/testserver"
)

// A wrong password fails at clientv3.New, with etcd's answer: no executor
// is ever built on such a client.
func TestFailClosed_wrongPassword(t *testing.T) {
	s, certs := authServer(t)
	if _, err := tlsClient(t, s, clientTLS(t, certs), lockUser, "wrong"); !errors.Is(err, rpctypes.ErrAuthFailed) {
		t.Fatalf("clientv3.New with a wrong password = %v, want rpctypes.ErrAuthFailed", err)
	}
}

// A user without permission on the executor's prefix gets ErrBackend
// wrapping etcd's "permission denied" on every attempt, waiting or not,
// watchdog or fixed expiry, and nothing is left behind: no entryLock held by a
// background clean-up (which would make the next attempt report the key
// busy), no write to void swept forever.
func TestFailClosed_missingPermission(t *testing.T) {
	s, certs := authServer(t)
	root := rootClient(t, s, certs)
	user, password := addUser(t, root, "other/")
	cli, err := tlsClient(t, s, clientTLS(t, certs), user, password)
	if err != nil {
		t.Fatal(err)
	}
	e := newExec(t, cli, etcd.Options{Prefix: lockPrefix})
	k := uniqueKey(t)
	for _, r := range []executor.Request{watchdog(k, false), watchdog(k, true), fixed(k, 5*time.Second, false), fixed(k, 5*time.Second, true)} {
		for attempt := range 2 {
			l, err := e.Acquire(t.Context(), r)
			if err == nil {
				_ = l.Release(t.Context())
				t.Fatalf("Acquire (renewed %v, wait %v) without permission returned a lease", r.Renewed, r.Wait)
			}
			if !errors.Is(err, executor.ErrBackend) || !errors.Is(err, rpctypes.ErrPermissionDenied) {
				t.Fatalf("Acquire (renewed %v, wait %v) attempt %d = %v, want ErrBackend wrapping permission denied", r.Renewed, r.Wait, attempt, err)
			}
		}
	}
	if n := etcd.SlotCount(e); n != 0 {
		t.Errorf("%d entryLocks held after refused writes, want 0", n)
	}
	if n := etcd.UncertainCount(e); n != 0 {
		t.Errorf("%d refused writes recorded to void, want 0", n)
	}
}

// A client that does not trust the server's certificate gets ErrBackend
// saying that it cannot connect (clientv3 itself only reports the deadline;
// its log names the x509 error), never a lock, and does not hammer the
// server: gRPC's reconnect backoff paces the handshakes.
func TestFailClosed_untrustedServer(t *testing.T) {
	s, _ := authServer(t)
	other, err := testserver.NewCerts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// With credentials, clientv3.New authenticates first and fails at its
	// DialTimeout with the bare deadline.
	if _, err := tlsClientTimeout(t, s, clientTLS(t, other), lockUser, lockPassword, time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("clientv3.New with credentials against an untrusted server = %v, want the dial deadline", err)
	}
	before := countLog(t, s, "bad certificate")
	cli, err := tlsClient(t, s, clientTLS(t, other), "", "")
	if err != nil {
		t.Fatal(err)
	}
	e := newExec(t, cli, etcd.Options{Prefix: lockPrefix})
	k := uniqueKey(t)
	began := time.Now()
	for _, r := range []executor.Request{watchdog(k, false), fixed(k, 5*time.Second, true)} {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		l, err := e.Acquire(ctx, r)
		cancel()
		if err == nil {
			_ = l.Release(t.Context())
			t.Fatal("Acquire against an untrusted server returned a lease")
		}
		if !errors.Is(err, executor.ErrBackend) || !errors.Is(err, etcd.ErrNoConnection) {
			t.Fatalf("Acquire against an untrusted server = %v, want ErrBackend saying the client cannot connect", err)
		}
	}
	_ = cli.Close()
	handshakes := countLog(t, s, "bad certificate") - before
	t.Logf("%d handshakes refused by the server in %v", handshakes, time.Since(began).Round(time.Millisecond))
	if handshakes > 10 {
		t.Errorf("%d handshakes in %v: the client retries without backoff", handshakes, time.Since(began))
	}
}

// What ends a watchdog lock held through a Template when its credentials go
// while it is held. Deleting the user or changing its password invalidates
// the client's token and its re-authentication fails, so the next
// keep-alive fails and the lock ends as lost within a third of the TTL; the
// lease, whose revocation is refused too, then expires a TTL after the last
// keep-alive, freeing the key. Revoking the role's permission does not end
// the lock: etcd checks no key permission on keep-alives (nor on lease
// grants or TimeToLive), so the lease lives and the lock stays held and
// exclusive. Its Release is then refused and the delete is retried in the
// background, with backoff and one log line, until the permission is back.
func TestFailClosed_revokedWhileHeld(t *testing.T) {
	s, certs := authServer(t)
	root := rootClient(t, s, certs)
	const ttl = 3 * time.Second
	for _, tc := range []struct {
		name   string
		revoke func(ctx context.Context, user string) error
	}{
		{"user deleted", func(ctx context.Context, user string) error {
			_, err := root.UserDelete(ctx, user)
			return err
		}},
		{"password changed", func(ctx context.Context, user string) error {
			_, err := root.UserChangePassword(ctx, user, "changed")
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &testlog.Recorder{}
			tpl, user, k := heldTemplate(t, s, certs, root, ttl, log)
			l, err := tpl.Lock(t.Context(), k)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.revoke(t.Context(), user); err != nil {
				t.Fatal(err)
			}
			select {
			case <-l.Done():
			case <-time.After(ttl):
				t.Fatal("lock still held a TTL after its credentials went")
			}
			if !errors.Is(l.Err(), lock4go.ErrLockLost) {
				t.Fatalf("Err() = %v, want ErrLockLost", l.Err())
			}
			if err := l.Release(t.Context()); !errors.Is(err, lock4go.ErrLockNotHeld) {
				t.Fatalf("Release after the loss = %v, want ErrLockNotHeld", err)
			}
			// The session logs its loss just after it signals it.
			const lost = "etcd: keep-alive session lost; its locks are lost"
			if !log.Await(lost, ttl) {
				t.Errorf("session loss not logged within %v of the signal", ttl)
			}
			// The lease expires by its TTL: another user gets the key.
			other := newExec(t, root, etcd.Options{Prefix: lockPrefix})
			ctx, cancel := context.WithTimeout(t.Context(), 3*ttl)
			defer cancel()
			next, err := other.Acquire(ctx, watchdog(k, true))
			if err != nil {
				t.Fatalf("key not freed after the lease's expiry: %v", err)
			}
			mustRelease(t, next)
			if n := log.Count(lost); n != 1 {
				t.Errorf("session loss logged %d times, want 1", n)
			}
		})
	}
	t.Run("permission revoked", func(t *testing.T) {
		log := &testlog.Recorder{}
		tpl, user, k := heldTemplate(t, s, certs, root, ttl, log)
		l, err := tpl.Lock(t.Context(), k)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := root.RoleRevokePermission(t.Context(), user, lockPrefix, clientv3.GetPrefixRangeEnd(lockPrefix)); err != nil {
			t.Fatal(err)
		}
		// Keep-alives still succeed: the lock outlives its TTL, and is held.
		select {
		case <-l.Done():
			t.Fatalf("lock ended after the permission was revoked: %v", l.Err())
		case <-time.After(ttl + ttl/3):
		}
		waitEntries(t, root, lockPrefix+k, 1)
		if err := l.Release(t.Context()); !errors.Is(err, rpctypes.ErrPermissionDenied) {
			t.Fatalf("Release without permission = %v, want permission denied", err)
		}
		waitEntries(t, root, lockPrefix+k, 1) // still held: nobody else gets it
		// The background delete is refused at least once before the
		// permission comes back (on a busy machine its first try may come
		// late: wait for it, or a grant first would let it through at once).
		const refused = "etcd: removing an abandoned queue entry failed; retrying in the background"
		if !log.Await(refused, 10*time.Second) {
			t.Fatal("refused background delete not logged")
		}
		grantPrefix(t, root, user, lockPrefix)
		waitEntries(t, root, lockPrefix+k, 0) // the background delete got through
		if n := log.Count(refused); n != 1 {
			t.Errorf("refused background delete logged %d times, want 1", n)
		}
	})
}

// heldTemplate returns a Template over a TLS executor logging to log, as a
// new user with readwrite on the lock prefix, that user, and a fresh key.
func heldTemplate(t *testing.T, s *testserver.Server, certs *testserver.Certs, root *clientv3.Client, ttl time.Duration, log *testlog.Recorder) (*lock4go.Template, string, string) {
	t.Helper()
	user, password := addUser(t, root, lockPrefix)
	cli, err := tlsClient(t, s, clientTLS(t, certs), user, password)
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(log)
	e := newExec(t, cli, etcd.Options{Prefix: lockPrefix, Logger: logger})
	tpl, err := lock4go.New(lock4go.Config{Expire: ttl, Logger: logger}, e)
	if err != nil {
		t.Fatal(err)
	}
	return tpl, user, uniqueKey(t)
}

// rootClient returns a client of s as root.
func rootClient(t *testing.T, s *testserver.Server, certs *testserver.Certs) *clientv3.Client {
	t.Helper()
	cli, err := tlsClient(t, s, clientTLS(t, certs), "root", rootPassword)
	if err != nil {
		t.Fatal(err)
	}
	return cli
}

// addUser creates a user, and a role of the same name with readwrite on
// prefix granted to it, both deleted when the test ends. It returns the
// user's name and password.
func addUser(t *testing.T, root *clientv3.Client, prefix string) (string, string) {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name, password := "user-"+hex.EncodeToString(b[:]), "pw-"+hex.EncodeToString(b[:])
	ctx := t.Context()
	if _, err := root.RoleAdd(ctx, name); err != nil {
		t.Fatal(err)
	}
	grantPrefix(t, root, name, prefix)
	if _, err := root.UserAdd(ctx, name, password); err != nil {
		t.Fatal(err)
	}
	if _, err := root.UserGrantRole(ctx, name, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.WithoutCancel(ctx)
		_, _ = root.UserDelete(ctx, name)
		_, _ = root.RoleDelete(ctx, name)
	})
	return name, password
}

// grantPrefix grants role readwrite on prefix, as
// `etcdctl role grant-permission --prefix=true <role> readwrite <prefix>`.
func grantPrefix(t *testing.T, root *clientv3.Client, role, prefix string) {
	t.Helper()
	if _, err := root.RoleGrantPermission(t.Context(), role, prefix, clientv3.GetPrefixRangeEnd(prefix),
		clientv3.PermissionType(clientv3.PermReadWrite)); err != nil {
		t.Fatal(err)
	}
}

// countLog counts the lines of s's log that contain what.
func countLog(t *testing.T, s *testserver.Server, what string) int {
	t.Helper()
	b, err := os.ReadFile(s.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), what)
}
