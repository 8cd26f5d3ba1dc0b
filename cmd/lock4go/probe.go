package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"time"
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
