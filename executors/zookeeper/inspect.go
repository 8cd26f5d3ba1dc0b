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

// Inspect implements [executor.Inspector]. The holder is the first node of
// the key's queue: Owner is its data (the owner value for lock4go nodes,
// empty for zk.Lock, the client's address for Curator), Token its creation
// zxid, TTL 0 (the lease lasts as long as the holder's session) and Waiters
// the number of nodes queued behind it. Read-lock nodes at the head of the
// queue hold the key together: Holder.Shared counts them and the first of
// them is described. An empty key is reported as
// [executor.ErrInvalidKey], as by Acquire.
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

// inspect reads the queue under parent and the first node; it reports
// zk.ErrNoNode when the queue is empty.
func (e *Executor) inspect(parent string) (executor.Holder, error) {
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
		data, st, err := e.conn.Get(parent + "/" + nodes[0])
		if errors.Is(err, zk.ErrNoNode) {
			continue // released meanwhile: read the queue again
		}
		if err != nil {
			return executor.Holder{}, err
		}
		h := executor.Holder{Owner: string(data), Token: st.Czxid, Waiters: len(nodes) - 1}
		// Read locks at the head hold the key together.
		for _, n := range nodes {
			if !isReader(n) {
				break
			}
			h.Shared++
		}
		h.Waiters -= max(h.Shared-1, 0)
		return h, nil
	}
	return executor.Holder{}, errors.New("zookeeper: the queue keeps changing")
}

// inspectSemaphore describes a semaphore in Curator's layout: Shared counts
// its lease nodes (with, while an acquirer waits for a permit, that
// acquirer's own) and describes the oldest, Waiters counts the acquirers
// queued for the semaphore's mutex, the one counting leases included.
func (e *Executor) inspectSemaphore(parent string) (executor.Holder, error) {
	leases, _, err := e.conn.Children(parent + "/" + semLeases)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return executor.Holder{}, err
	}
	locks, _, err := e.conn.Children(parent + "/" + semLocks)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return executor.Holder{}, err
	}
	if len(leases) == 0 {
		return executor.Holder{}, zk.ErrNoNode
	}
	slices.SortFunc(leases, func(a, b string) int {
		return strings.Compare(a[strings.LastIndex(a, "-"):], b[strings.LastIndex(b, "-"):])
	})
	h := executor.Holder{Shared: len(leases), Waiters: len(queue(locks))}
	data, st, err := e.conn.Get(parent + "/" + semLeases + "/" + leases[0])
	if err == nil {
		h.Owner, h.Token = string(data), st.Czxid
	}
	return h, nil
}
