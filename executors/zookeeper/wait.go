package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
)

// queuer is one node's wait in its key's queue.
type queuer struct {
	e      *Executor
	req    executor.Request
	p      *attemptState
	parent string
	guid   string
	name   string
	path   string

	session int64           // the node's session, once known
	stat    *zk.Stat        // the node's stat, once known
	own     <-chan zk.Event // a watch on the own node
}

// run loops: list the queue; hold the lock when first (a read lock: when no
// writer is before it), otherwise watch the predecessor (a read lock: the
// last writer before it) and list again when it goes.
func (q *queuer) run(ctx context.Context) (*lease, error) {
	key := q.req.Key
	for {
		listed := time.Now()
		children, err := q.list()
		if err != nil {
			return nil, backendErr("acquire", key, err)
		}
		if err := q.checkNotSemaphore(children); err != nil {
			return nil, err
		}
		nodes := queue(children)
		pred, err := q.predecessor(nodes)
		if err != nil {
			return nil, err
		}
		if pred < 0 {
			return q.grant(listed)
		}
		if !q.req.Wait {
			return nil, fmt.Errorf("zookeeper: %q: %w", key, executor.ErrNotAcquired)
		}
		if err := q.waitFor(ctx, q.parent+"/"+nodes[pred]); err != nil {
			return nil, err
		}
	}
}

// checkNotSemaphore refuses a lock on a key in use as a semaphore: one
// whose children hold a semaphore's leases (its containers outlive it
// until ZooKeeper reaps them, so an empty one does not count).
func (q *queuer) checkNotSemaphore(children []string) error {
	if !slices.Contains(children, semLeases) {
		return nil
	}
	leases, _, err := q.e.conn.Children(q.parent + "/" + semLeases)
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return backendErr("acquire", q.req.Key, err)
	}
	if len(leases) > 0 {
		return fmt.Errorf("zookeeper: %q is in use as a semaphore, not a lock: %w", q.req.Key, executor.ErrInvalidConfig)
	}
	return nil
}

// predecessor returns the index in nodes (the queue in order) of the node
// the own node waits for, or -1 when it holds the lock. A writer waits for
// the node just before it; a reader only for the last writer before it
// (Curator's read-lock rule: no write node before its own). Twins of the
// own node, from a create retried after a lost reply, are removed.
func (q *queuer) predecessor(nodes []string) (int, error) {
	idx := -1
	for i, c := range nodes {
		switch {
		case c == q.name:
			idx = i
		case hasGUID(c, q.guid):
			_ = q.e.remove(q.parent+"/"+c, q.session)
		}
	}
	if idx < 0 {
		return 0, backendErr("acquire", q.req.Key, errVanished)
	}
	pred := idx - 1
	if q.req.Shared {
		for pred >= 0 && isReader(nodes[pred]) {
			pred--
		}
	}
	return pred, nil
}

// grant makes the lease of the own node, held since the list sent at
// listed; from here on the monitor watches its session.
func (q *queuer) grant(listed time.Time) (*lease, error) {
	key := q.req.Key
	if sessionGone(q.e.conn, q.session) {
		return nil, backendErr("acquire", key, errSessionEnded)
	}
	l := newLease(q.e, key, q.path, q.stat, q.own, listed)
	if !q.e.mon.add(l) {
		return nil, closedErr("acquire", key)
	}
	return l, nil
}

// list reads the children of the key's parent. The first time it also reads
// the own node's stat (its creation zxid is the fencing token, its
// ephemeral owner the session) and sets a watch on it, in the same round
// trip.
func (q *queuer) list() ([]string, error) {
	q.e.stats.childrenReads.Add(1)
	if q.own != nil {
		children, _, err := q.e.conn.Children(q.parent)
		return children, err
	}
	var (
		wg     sync.WaitGroup
		exists bool
		werr   error
	)
	wg.Go(func() { exists, q.stat, q.own, werr = q.e.conn.ExistsW(q.path) })
	children, _, err := q.e.conn.Children(q.parent)
	wg.Wait()
	switch {
	case werr != nil:
		return nil, werr
	case !exists:
		return nil, errVanished
	case err != nil:
		return nil, err
	}
	q.session = q.stat.EphemeralOwner
	return children, nil
}

// waitFor waits until the predecessor node at pred is gone (or changed),
// the own node vanishes, or ctx ends. It parks the attempt meanwhile: an
// Acquire that gives up then leaves the deletion of the node to the attempt,
// which wakes with ctx. Once the caller gave up it does not wait, and it
// reports errAbandoned after a wait however it ended.
func (q *queuer) waitFor(ctx context.Context, pred string) error {
	key := q.req.Key
	ok, _, w, err := q.e.conn.ExistsW(pred)
	if err != nil {
		return backendErr("acquire", key, err)
	}
	if !ok {
		return nil // gone already: list again
	}
	if !q.p.park() {
		return backendErr("acquire", key, errAbandoned)
	}
	err = q.wait(ctx, w)
	if !q.p.unpark(err == nil) && err == nil {
		err = backendErr("acquire", key, errAbandoned)
	}
	return err
}

// wait blocks until the predecessor's watch w fires, the own node's watch
// fires, the request's WaitUntil passes, ctx ends or the executor closes.
func (q *queuer) wait(ctx context.Context, w <-chan zk.Event) error {
	key := q.req.Key
	q.e.stats.waiting.Add(1)
	defer q.e.stats.waiting.Add(-1)
	var until <-chan time.Time
	if !q.req.WaitUntil.IsZero() {
		t := time.NewTimer(time.Until(q.req.WaitUntil))
		defer t.Stop()
		until = t.C
	}
	select {
	case <-until:
		return fmt.Errorf("zookeeper: acquire %q: %w: %w", key, executor.ErrNotAcquired, errWaitEnded)
	case ev := <-w:
		q.e.stats.wakeups.Add(1)
		if ev.Type == zk.EventNotWatching {
			return backendErr("acquire", key, fmt.Errorf("watch on predecessor ended: %w", ev.Err))
		}
		return nil
	case ev := <-q.own:
		q.own = nil // read the stat and watch again on the next list
		if ev.Type == zk.EventNodeDataChanged {
			return nil
		}
		if ev.Err != nil {
			return backendErr("acquire", key, ev.Err)
		}
		return backendErr("acquire", key, errVanished)
	case <-ctx.Done():
		return fmt.Errorf("zookeeper: acquire %q: %w: %w", key, executor.ErrNotAcquired, executor.ContextError(ctx))
	case <-q.e.done:
		return closedErr("acquire", key)
	}
}
