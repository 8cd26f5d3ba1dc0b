package zookeeper

import (
	"context"
	"fmt"
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
