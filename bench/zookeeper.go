package bench

import (
	"context"
	"errors"
	"strings"

	"github.com/go-zookeeper/zk"
)

// zkRoot is the parent of the ZooKeeper nodes of raw floors and zk.Lock.
const zkRoot = "/lockbench"

var zkACL = zk.WorldACL(zk.PermAll)

// zkPath maps a bench key to one node name.
func zkPath(parts ...string) string {
	return zkRoot + "/" + strings.Join(parts, "/")
}

// ensureZKParent creates path's parents.
func ensureZKParent(c *zk.Conn, path string) error {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	p := ""
	for _, part := range parts[:len(parts)-1] {
		p += "/" + part
		if _, err := c.Create(p, nil, 0, zkACL); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return nil
}

// RawZooKeeper is the ZooKeeper floor: create an ephemeral node, then delete
// it (no sequence, no waiting).
func RawZooKeeper(c *zk.Conn) (*Subject, error) {
	if err := ensureZKParent(c, zkPath("raw", "x")); err != nil {
		return nil, err
	}
	return &Subject{
		Name: "raw zookeeper", Backend: ZooKeeper, Kind: KindRaw,
		Note: "create ephemeral + delete",
		newLocker: shared(LockerFunc(func(ctx context.Context, key string) (Unlock, error) {
			p := zkPath("raw", key)
			if _, err := c.Create(p, nil, zk.FlagEphemeral, zkACL); err != nil {
				if errors.Is(err, zk.ErrNodeExists) {
					return nil, errBusy
				}
				return nil, err
			}
			return func(context.Context) error { return c.Delete(p, -1) }, nil
		})),
	}, nil
}

// ZKLock is go-zookeeper's zk.Lock (protected ephemeral sequential nodes,
// watch on the predecessor). Each contender has its own zk.Lock per key on
// one shared session. zk.Lock takes no context: a Lock call waits until it
// holds the lock, whatever ctx says.
func ZKLock(c *zk.Conn) (*Subject, error) {
	if err := ensureZKParent(c, zkPath("zklock", "x")); err != nil {
		return nil, err
	}
	return &Subject{
		Name: "go-zookeeper zk.Lock", Backend: ZooKeeper, Kind: KindPeer, Waits: true,
		Note: "sequential node queue, watch on predecessor (no ctx)",
		newLocker: func(int) (Locker, error) {
			locks := map[string]*zk.Lock{} // used by one goroutine
			return LockerFunc(func(_ context.Context, key string) (Unlock, error) {
				l := locks[key]
				if l == nil {
					l = zk.NewLock(c, zkPath("zklock", key), zkACL)
					locks[key] = l
				}
				if err := l.Lock(); err != nil {
					return nil, err
				}
				return func(context.Context) error { return l.Unlock() }, nil
			}), nil
		},
	}, nil
}
