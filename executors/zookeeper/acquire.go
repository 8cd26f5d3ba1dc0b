package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
)

// errVanished reports that the own lock node disappeared while queueing:
// its session expired or someone deleted it.
var errVanished = errors.New("zookeeper: own lock node vanished")

// Acquire implements [executor.Executor]. It joins the key's queue with a
// protected ephemeral sequential node and holds the lock when that node has
// the lowest sequence number. When another node is lower it returns
// [executor.ErrNotAcquired] at once if req.Wait is false; otherwise it
// watches only its immediate predecessor (so a release wakes exactly one
// waiter) until it is first or ctx ends. Whenever it gives up it deletes its
// node, retrying in the background while the connection is down. The node
// holds req.Owner as data; req.TTL is ignored, since the lease lasts as long
// as the session.
//
// go-zookeeper's calls take no context, so the attempt runs in its own
// goroutine and Acquire returns when ctx ends (or the executor closes) even
// if the server does not answer; the goroutine then cleans up by itself and
// ends with its last ZooKeeper call.
func (e *Executor) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	if req.Key == "" {
		return nil, fmt.Errorf("zookeeper: empty key: %w", executor.ErrInvalidKey)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("zookeeper: acquire %q: %w: %w", req.Key, executor.ErrNotAcquired, context.Cause(ctx))
	}
	// actx ends with ctx or when Acquire returns: the attempt learns both of
	// ctx ending and of being abandoned.
	actx, cancel := context.WithCancel(ctx)
	defer cancel()

	type result struct {
		l   *lease
		err error
	}
	if e.isClosed() {
		return nil, backendErr("acquire", req.Key, errClosed)
	}
	res := make(chan result) // unbuffered: a send succeeds only if Acquire takes it
	go func() {
		l, err := e.attempt(actx, req)
		select {
		case res <- result{l, err}:
		case <-actx.Done():
			if l != nil { // acquired, but the caller is gone
				l.abandon()
			}
		}
	}()
	select {
	case r := <-res:
		if ctx.Err() == nil {
			if r.err != nil {
				return nil, r.err
			}
			return r.l, nil
		}
		if r.l != nil { // acquired as ctx ended: honour ctx
			go r.l.abandon()
		}
	case <-ctx.Done():
	case <-e.done:
		return nil, backendErr("acquire", req.Key, errClosed)
	}
	return nil, fmt.Errorf("zookeeper: acquire %q: %w: %w", req.Key, executor.ErrNotAcquired, context.Cause(ctx))
}

// attempt creates the node and queues until it holds the lock, fails, or
// ctx ends. On every failure it removes its node.
func (e *Executor) attempt(ctx context.Context, req executor.Request) (*lease, error) {
	parent := e.keyPath(req.Key)
	guid := newGUID()
	name, err := e.create(parent, guid, []byte(req.Owner))
	if err != nil {
		return nil, createErr(req.Key, err)
	}
	q := queuer{e: e, ctx: ctx, req: req, parent: parent, guid: guid, name: name, path: parent + "/" + name}
	l, err := q.run()
	if err != nil {
		rerr := e.remove(q.path, q.session)
		if !req.Wait && errors.Is(err, executor.ErrNotAcquired) && rerr != nil && !errors.Is(rerr, zk.ErrNoNode) {
			// The attempt failed for sure, but its node could not be
			// removed yet: it is being removed in the background.
			err = fmt.Errorf("%w (node removal pending: %v)", err, rerr)
		}
		return nil, err
	}
	return l, nil
}

// createErr maps a failed create of key's lock node.
func createErr(key string, err error) error {
	if errors.Is(err, zk.ErrNoAuth) || errors.Is(err, zk.ErrInvalidACL) {
		return backendErr("acquire", key, fmt.Errorf("check Options.ACL and the conn's auth: %w", err))
	}
	return backendErr("acquire", key, err)
}

// queuer is one node's wait in its key's queue.
type queuer struct {
	e      *Executor
	ctx    context.Context
	req    executor.Request
	parent string
	guid   string
	name   string
	path   string

	session int64           // the node's session, once known
	stat    *zk.Stat        // the node's stat, once known
	own     <-chan zk.Event // a watch on the own node
}

// run loops: list the queue; hold the lock when first, otherwise watch the
// predecessor and list again when it goes.
func (q *queuer) run() (*lease, error) {
	key := q.req.Key
	for {
		children, err := q.list()
		if err != nil {
			return nil, backendErr("acquire", key, err)
		}
		nodes := queue(children)
		idx := -1
		for i, c := range nodes {
			switch {
			case c == q.name:
				idx = i
			case hasGUID(c, q.guid):
				// A twin from a create retried after a lost reply.
				_ = q.e.remove(q.parent+"/"+c, q.session)
			}
		}
		if idx < 0 {
			return nil, backendErr("acquire", key, errVanished)
		}
		if idx == 0 {
			l := newLease(q.e, key, q.path, q.stat, q.own)
			q.e.mon.add(l)
			if sessionGone(q.e.conn, l.session) {
				l.lose(errSessionEnded, false)
			}
			return l, nil
		}
		if !q.req.Wait {
			return nil, fmt.Errorf("zookeeper: %q: %w", key, executor.ErrNotAcquired)
		}
		if err := q.waitFor(q.parent + "/" + nodes[idx-1]); err != nil {
			return nil, err
		}
	}
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
// the own node vanishes, or ctx ends.
func (q *queuer) waitFor(pred string) error {
	key := q.req.Key
	ok, _, w, err := q.e.conn.ExistsW(pred)
	if err != nil {
		return backendErr("acquire", key, err)
	}
	if !ok {
		return nil // gone already: list again
	}
	q.e.stats.waiting.Add(1)
	defer q.e.stats.waiting.Add(-1)
	select {
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
	case <-q.ctx.Done():
		return fmt.Errorf("zookeeper: acquire %q: %w: %w", key, executor.ErrNotAcquired, context.Cause(q.ctx))
	case <-q.e.done:
		return backendErr("acquire", key, errClosed)
	}
}
