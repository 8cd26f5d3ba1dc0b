package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
	zkexec "github.com/lock4go/lock4go/executors/zookeeper"
)

// zkSession is the session timeout of the tool's own ZooKeeper session:
// what a bench lock outlives the tool by if it is killed.
const zkSession = 10 * time.Second

// dialZooKeeper connects to --zookeeper, waits for a session and
// authenticates with --zk-digest.
func dialZooKeeper(ctx context.Context, c *connFlags) (*backend, error) {
	hosts, err := zkHosts(c.zookeeper)
	if err != nil {
		return nil, err
	}
	addr := strings.Join(hosts, ",")
	tlsCfg, err := c.tlsConfig(nil)
	if err != nil {
		return nil, err
	}
	var opts []func(*zk.Conn)
	if tlsCfg != nil {
		opts = append(opts, zk.WithDialer(tlsDialer(tlsCfg)))
	}
	conn, events, err := zkexec.Dial(hosts, zkSession, opts...)
	if err != nil {
		return nil, usagef("--zookeeper %q: %v", c.zookeeper, err)
	}
	if err := awaitSession(ctx, events); err != nil {
		// Without a session there is nothing to close politely, and
		// conn.Close waits a second for the server's answer to its close
		// request: let it finish on its own.
		go conn.Close()
		return nil, connectErr(ctx, "zookeeper", hosts, c.timeout, err)
	}
	o := zkexec.Options{BasePath: c.zkBasePath}
	if c.zkDigest != "" {
		user, password, _ := strings.Cut(c.zkDigest, ":")
		if o.ACL, err = zkexec.DigestAuth(ctx, conn, user, password); err != nil {
			conn.Close()
			return nil, err
		}
	}
	e, err := zkexec.New(conn, o)
	if err != nil {
		conn.Close()
		return nil, usagef("%v", err)
	}
	return &backend{kind: "zookeeper", addr: addr, exec: e, breakNote: zkNote, close: func() {
		_ = e.Close()
		conn.Close()
	}}, nil
}

// zkNote: lock4go watches its own node; other clients do not.
func zkNote(context.Context, string, executor.Holder) string {
	return "a lock4go holder notices at once (its watch on its node fires); a zk.Lock or Curator holder is not told and runs on until it releases."
}

// awaitSession waits until the connection has a session.
func awaitSession(ctx context.Context, events <-chan zk.Event) error {
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return zk.ErrClosing
			}
			switch ev.State {
			case zk.StateHasSession:
				return nil
			case zk.StateAuthFailed:
				return zk.ErrAuthFailed
			}
		case <-ctx.Done():
			return fmt.Errorf("no session: %w", context.Cause(ctx))
		}
	}
}

// tlsDialer returns a go-zookeeper dialer that speaks TLS with cfg.
func tlsDialer(cfg *tls.Config) zk.Dialer {
	return func(network, address string, timeout time.Duration) (net.Conn, error) {
		return tls.DialWithDialer(&net.Dialer{Timeout: timeout}, network, address, cfg)
	}
}
