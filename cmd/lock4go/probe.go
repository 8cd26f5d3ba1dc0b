package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/lock4go/lock4go/executor"
)

// probeTimeout bounds the TCP probe that explains an unreachable backend.
const probeTimeout = 200 * time.Millisecond

// tcpHint explains why clients that keep retrying (etcd's, ZooKeeper's)
// got no answer: it dials each address once and reports what TCP says.
// Each address is host:port or a URL.
func tcpHint(addrs []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	var d net.Dialer
	for _, a := range addrs {
		if u, err := url.Parse(a); err == nil && u.Host != "" {
			a = u.Host
		}
		c, err := d.DialContext(ctx, "tcp", a)
		if err != nil {
			return err
		}
		_ = c.Close()
	}
	return fmt.Errorf("TCP connects to %v, but the server does not answer", addrs)
}

// unreachable wraps err from connecting to what at addr with
// [errUnreachable].
func unreachable(what, addr string, timeout time.Duration, err error) error {
	return fmt.Errorf("%s %s: %w within %v: %w", what, addr, errUnreachable, timeout, err)
}

// connectErr describes err from connecting to what at addrs: unreachable
// when nothing answered (refused, or silent until the timeout, which TCP
// then explains), a backend error otherwise (a failed TLS handshake, bad
// credentials, a server that closed the connection).
func connectErr(ctx context.Context, what string, addrs []string, timeout time.Duration, err error) error {
	addr := strings.Join(addrs, ",")
	if errors.Is(err, syscall.ECONNREFUSED) {
		return unreachable(what, addr, timeout, err)
	}
	var ne net.Error
	code := status.Code(err)
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) ||
		code == codes.Unavailable || code == codes.DeadlineExceeded {
		return unreachable(what, addr, timeout, fmt.Errorf("%w (%w)", err, tcpHint(addrs)))
	}
	return fmt.Errorf("%s %s: %w: %w", what, addr, executor.ErrBackend, err)
}
