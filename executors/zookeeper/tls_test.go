package zookeeper

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/internal/testserver"
)

// The ZooKeeper serving clients over TLS only, shared by the tests of this
// file and started by the first of them.
var zkTLS struct {
	once  sync.Once
	srv   *testserver.Server
	certs *testserver.Certs
	dir   string
	err   error
}

// tlsServer returns the shared TLS server and its certificates.
func tlsServer(t *testing.T) (*testserver.Server, *testserver.Certs) {
	t.Helper()
	zkTLS.once.Do(func() {
		if zkTLS.dir, zkTLS.err = os.MkdirTemp("", "lock4go-zk-certs-*"); zkTLS.err != nil {
			return
		}
		if zkTLS.certs, zkTLS.err = testserver.NewCerts(zkTLS.dir); zkTLS.err != nil {
			return
		}
		zkTLS.srv, zkTLS.err = testserver.StartZooKeeperTLS(zkTLS.certs)
	})
	testserver.Check(t, zkTLS.err)
	return zkTLS.srv, zkTLS.certs
}

// stopTLSServer stops the shared TLS server, if it was started.
func stopTLSServer() {
	if zkTLS.srv != nil {
		_ = zkTLS.srv.Stop()
	}
	if zkTLS.dir != "" {
		_ = os.RemoveAll(zkTLS.dir)
	}
}

// dialTLS connects to addr over TLS with DialTLS, waits for the session and
// closes the conn at the end of the test.
func dialTLS(t *testing.T, addr string, cfg *tls.Config) *zk.Conn {
	t.Helper()
	conn, events, err := DialTLS(t.Context(), []string{addr}, testSession, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	deadline := time.After(15 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return conn
			}
		case <-deadline:
			t.Fatalf("no ZooKeeper session with %s over TLS", addr)
		}
	}
}

func clientTLS(t *testing.T, c *testserver.Certs) *tls.Config {
	t.Helper()
	cfg, err := c.ClientTLS()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The conformance suite over TLS, with creator-only digest ACLs.
func TestConformance_TLS(t *testing.T) {
	s, certs := tlsServer(t)
	base := aclBasePath(t, dialTLS(t, s.Addr(), clientTLS(t, certs)))
	executortest.Run(t, func(t *testing.T) executor.Executor {
		conn := dialTLS(t, s.Addr(), clientTLS(t, certs))
		acl, err := DigestAuth(t.Context(), conn, "lock4go", "s3cret")
		if err != nil {
			t.Fatal(err)
		}
		return newExecutor(t, conn, Options{BasePath: base, ACL: acl})
	}, executortest.Options{NoExpiry: true, PermitsUnchecked: true})
}

// DialTLS refuses a server whose certificate the client does not trust,
// naming the x509 error. A conn that cannot complete a handshake later (as
// after a server certificate renewed under another CA) fails every Acquire
// with ErrBackend wrapping zk.ErrNoServer, never grants a lock, and
// go-zookeeper paces its handshakes at about one a second.
func TestFailClosed_untrustedServer(t *testing.T) {
	s, _ := tlsServer(t)
	other, err := testserver.NewCerts(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	untrusted := clientTLS(t, other)
	conn, _, err := DialTLS(t.Context(), []string{s.Addr()}, testSession, untrusted)
	var unknown x509.UnknownAuthorityError
	if err == nil {
		conn.Close()
		t.Fatal("DialTLS to an untrusted server succeeded")
	}
	if !errors.Is(err, executor.ErrBackend) || !errors.As(err, &unknown) {
		t.Fatalf("DialTLS to an untrusted server = %v, want ErrBackend wrapping x509.UnknownAuthorityError", err)
	}

	before := countLog(t, s, "Unsuccessful handshake")
	began := time.Now()
	conn, _, err = Dial([]string{s.Addr()}, testSession, zk.WithDialer(tlsDialer(untrusted)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	e := newExecutor(t, conn, Options{})
	// Attempts one after the other for a while, as a Template's retries.
	for i := 0; time.Since(began) < 3*time.Second; i++ {
		wait := i%2 == 1
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		l, err := e.Acquire(ctx, req("k", wait))
		cancel()
		if err == nil {
			_ = l.Release(t.Context())
			t.Fatal("Acquire without a TLS connection returned a lease")
		}
		// No server within the attempt's 2s: ErrBackend and zk.ErrNoServer,
		// or, on a busy machine where the handshakes take longer, the
		// attempt's deadline (the contract allows ErrNotAcquired then).
		noServer := errors.Is(err, executor.ErrBackend) && errors.Is(err, zk.ErrNoServer)
		if !noServer && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Acquire (wait %v) without a TLS connection = %v, want ErrBackend wrapping zk.ErrNoServer, or the attempt's deadline", wait, err)
		}
	}
	conn.Close()
	elapsed := time.Since(began)
	handshakes := countLog(t, s, "Unsuccessful handshake") - before
	t.Logf("%d handshakes refused by the server in %v", handshakes, elapsed.Round(time.Millisecond))
	if limit := 2 * int(elapsed/time.Second+2); handshakes > limit {
		t.Errorf("%d handshakes in %v, want at most %d: go-zookeeper retries without pause", handshakes, elapsed, limit)
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
