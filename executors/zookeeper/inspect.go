package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
)

// Inspect implements [executor.Inspector]. The holder is the first node
// of the key's queue, and when it is a read lock, the read-lock nodes right
// after it, which hold the key together: each node's data is the owner
// (the owner value for lock4go nodes, empty for zk.Lock, the client's
// address for Curator), its creation zxid the token, and TTL is 0 (the
// lease lasts as long as the holder's session). Holder.Waiters counts the
// nodes queued behind them: one per executor waiting for a lock, one per
// call waiting for a read lock. A semaphore (Curator's layout) lists its
// lease nodes; ZooKeeper does not store its n (Holder.Permits is 0). The
// server is synced with the leader first, so the holders of locks taken
// through other servers of an ensemble before the call are seen. An empty
// key is reported as [executor.ErrInvalidKey], as by Acquire.
func (e *Executor) Inspect(ctx context.Context, key string) (executor.Holder, error) {
	if key == "" {
		return executor.Holder{}, fmt.Errorf("zookeeper: empty key: %w", executor.ErrInvalidKey)
	}
	if e.isClosed() {
		return executor.Holder{}, closedErr("inspect", key)
	}
	if err := ctx.Err(); err != nil {
		return executor.Holder{}, backendErr("inspect", key, executor.ContextError(ctx))
	}
	parent := e.keyPath(key)
	var (
		h   executor.Holder
		err error
	)
	if cerr := e.call(ctx, func() { h, err = e.inspect(parent) }); cerr != nil {
		return executor.Holder{}, backendErr("inspect", key, cerr)
	}
	switch {
	case errors.Is(err, zk.ErrNoNode):
		return executor.Holder{}, fmt.Errorf("zookeeper: inspect %q: %w", key, executor.ErrLockNotHeld)
	case err != nil:
		return executor.Holder{}, backendErr("inspect", key, err)
	}
	return h, nil
}

// inspect reads the queue under parent and its holders' nodes; it reports
// zk.ErrNoNode when the queue is empty. It syncs the server with the
// leader first: a follower may lag, and Inspect must see a lock taken
// through another server of the ensemble before the call.
func (e *Executor) inspect(parent string) (executor.Holder, error) {
	if _, err := e.conn.Sync(parent); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return executor.Holder{}, err
	}
	for range maxCreateTries {
		children, _, err := e.conn.Children(parent)
		if err != nil {
			return executor.Holder{}, err
		}
		if slices.Contains(children, semLeases) {
			return e.inspectSemaphore(parent)
		}
		nodes := queue(children)
		if len(nodes) == 0 {
			return executor.Holder{}, zk.ErrNoNode
		}
		kind, n := executor.KindLock, 1
		if isReader(nodes[0]) {
			kind, n = executor.KindRead, 0
			for n < len(nodes) && isReader(nodes[n]) {
				n++ // read locks at the head hold the key together
			}
		}
		hs, err := e.nodeHolders(parent, nodes[:n])
		if err != nil {
			return executor.Holder{}, err
		}
		if len(hs) == 0 || hs[0].Token == 0 {
			continue // the head released meanwhile: read the queue again
		}
		return executor.NewHolder(kind, 0, hs, len(nodes)-n), nil
	}
	return executor.Holder{}, errors.New("zookeeper: the queue keeps changing")
}

// nodeHolders reads the nodes under parent: each node's data is a
// holder's owner and its creation zxid the token. A node deleted
// meanwhile is left out, except the first, which is returned with token 0
// so that the caller can tell.
func (e *Executor) nodeHolders(parent string, nodes []string) ([]executor.Holder, error) {
	hs := make([]executor.Holder, 0, len(nodes))
	for i, n := range nodes {
		data, st, err := e.conn.Get(parent + "/" + n)
		switch {
		case errors.Is(err, zk.ErrNoNode) && i == 0:
			return []executor.Holder{{}}, nil
		case errors.Is(err, zk.ErrNoNode):
			continue
		case err != nil:
			return nil, err
		}
		hs = append(hs, executor.Holder{Owner: string(data), Token: st.Czxid})
	}
	return hs, nil
}

// inspectSemaphore describes a semaphore in Curator's layout: its lease
// nodes, oldest first (with, while an acquirer waits for a permit, that
// acquirer's own), and as waiters the acquirers queued for the
// semaphore's mutex, the one counting leases included.
func (e *Executor) inspectSemaphore(parent string) (executor.Holder, error) {
	leases, _, err := e.conn.Children(parent + "/" + semLeases)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return executor.Holder{}, err
	}
	locks, _, err := e.conn.Children(parent + "/" + semLocks)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return executor.Holder{}, err
	}
	slices.SortFunc(leases, func(a, b string) int {
		return strings.Compare(a[strings.LastIndex(a, "-"):], b[strings.LastIndex(b, "-"):])
	})
	hs, err := e.nodeHolders(parent+"/"+semLeases, leases)
	if err != nil {
		return executor.Holder{}, err
	}
	if len(hs) > 0 && hs[0].Token == 0 {
		hs = hs[1:] // released meanwhile
	}
	if len(hs) == 0 {
		return executor.Holder{}, zk.ErrNoNode
	}
	return executor.NewHolder(executor.KindPermits, 0, hs, len(queue(locks))), nil
}
