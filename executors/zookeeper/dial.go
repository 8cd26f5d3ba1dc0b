package zookeeper

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
)

// Dial connects to a ZooKeeper ensemble with go-zookeeper's zk.Connect and
// a logger that discards go-zookeeper's messages (pass zk.WithLogger(...)
// among opts to keep them). opts are zk.Connect's options, such as
// zk.WithDialer or zk.WithEventCallback. Like zk.Connect it does not wait
// for the session: requests queue until it is established. The caller owns
// the returned conn, closes it after the executors that use it, and should
// drain the event channel or ignore it (go-zookeeper drops events nobody
// reads).
func Dial(servers []string, sessionTimeout time.Duration, opts ...func(*zk.Conn)) (*zk.Conn, <-chan zk.Event, error) {
	all := func(c *zk.Conn) {
		for _, o := range opts {
			o(c)
		}
	}
	conn, events, err := zk.Connect(servers, sessionTimeout, zk.WithLogger(quietLogger{}), all)
	if err != nil {
		return nil, nil, fmt.Errorf("zookeeper: dial %v: %w: %w", servers, executor.ErrBackend, err)
	}
	return conn, events, nil
}

// quietLogger discards go-zookeeper's log messages.
type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// DigestAuth authenticates conn as user with ZooKeeper's digest scheme and
// returns a creator-only ACL to use as [Options.ACL]: every node the
// executor creates can then be read, locked and deleted only by sessions
// authenticated as the same user (other lock4go instances, zk.Lock or
// Curator clients with the same credentials). go-zookeeper re-sends the
// credentials when it reconnects. Call it before the first Acquire; ctx
// bounds the round trip.
//
// The base path and lock parents carry the ACL too, so nodes created earlier
// with another ACL keep theirs; use a fresh base path when switching.
func DigestAuth(ctx context.Context, conn *zk.Conn, user, password string) ([]zk.ACL, error) {
	done := make(chan error, 1)
	go func() { done <- conn.AddAuth("digest", []byte(user+":"+password)) }()
	select {
	case err := <-done:
		if err != nil {
			return nil, fmt.Errorf("zookeeper: digest auth as %q: %w: %w", user, executor.ErrBackend, err)
		}
	case <-ctx.Done():
		return nil, fmt.Errorf("zookeeper: digest auth as %q: %w: %w", user, executor.ErrBackend, executor.ContextError(ctx))
	}
	return zk.DigestACL(zk.PermAll, user, password), nil
}

// DialTLS is [Dial] for servers that serve clients over TLS (ZooKeeper's
// secureClientPort with the Netty connection factory): every connection is
// made with cfg, whose ServerName defaults to the host of the server's
// address. First it makes one TLS handshake with the servers, in order,
// bounded by ctx: when none completes it returns an error wrapping
// [executor.ErrBackend] and each server's handshake error (an untrusted
// server certificate wraps x509.UnknownAuthorityError), instead of a conn
// whose every call fails with zk.ErrNoServer. A handshake that fails later
// (a server certificate renewed under a CA cfg does not trust) surfaces as
// zk.ErrNoServer, wrapped in ErrBackend, and go-zookeeper retries it about
// once a second; pass zk.WithLogger among opts to see its cause. With TLS
// 1.3 a client certificate the server refuses is noticed only after the
// handshake, so it also surfaces as zk.ErrNoServer.
func DialTLS(ctx context.Context, servers []string, sessionTimeout time.Duration, cfg *tls.Config, opts ...func(*zk.Conn)) (*zk.Conn, <-chan zk.Event, error) {
	if err := checkTLS(ctx, zk.FormatServers(servers), cfg); err != nil {
		return nil, nil, fmt.Errorf("zookeeper: dial %v: %w: %w", servers, executor.ErrBackend, err)
	}
	return Dial(servers, sessionTimeout, append([]func(*zk.Conn){zk.WithDialer(tlsDialer(cfg))}, opts...)...)
}

// tlsDialer returns a zk.Dialer that connects over TLS with cfg, within
// timeout for the connection and the handshake together.
func tlsDialer(cfg *tls.Config) zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		d := tls.Dialer{NetDialer: &net.Dialer{Timeout: timeout}, Config: cfg}
		return d.Dial(network, address)
	}
}

// checkTLS returns nil once a TLS handshake with one of servers completes,
// or the handshake errors of all of them.
func checkTLS(ctx context.Context, servers []string, cfg *tls.Config) error {
	errs := make([]error, 0, len(servers))
	for _, addr := range servers {
		d := tls.Dialer{Config: cfg}
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			_ = conn.Close()
			return nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", addr, err))
	}
	return errors.Join(errs...)
}
