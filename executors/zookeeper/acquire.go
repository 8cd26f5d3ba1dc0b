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

// errWaitEnded reports that the request's WaitUntil passed while the node
// waited in the queue.
var errWaitEnded = errors.New("zookeeper: wait for the turn ended")

// errVanished reports that the own lock node disappeared while queueing:
// its session expired or someone deleted it.
var errVanished = errors.New("zookeeper: own lock node vanished")

// Acquire implements [executor.Executor]. It joins the key's queue with a
// protected ephemeral sequential node and holds the lock when that node has
// the lowest sequence number. When another node is lower it returns
// [executor.ErrNotAcquired] at once if req.Wait is false; otherwise it
// watches only its immediate predecessor (so a release wakes exactly one
// waiter) until it is first or ctx ends. Whenever it gives up it deletes its
// node, retrying in the background while the connection is down, so no node
// is left to be granted to nobody. The node holds req.Owner as data;
// req.TTL must be at least [executor.MinTTL], as for every executor, but is
// otherwise ignored, since the lease lasts as long as the session.
//
// go-zookeeper's calls take no context and wait for their reply until the
// connection drops, so the attempt runs in its own goroutine and Acquire
// returns when ctx ends (or the executor closes) even if no reply comes.
// When it gives up while a call is in flight (a create whose reply may
// never arrive on a live connection, say), it deletes in the background
// whatever node carries the attempt's GUID; the goroutine issues no further
// create, deletes a node whose create completes late, and ends with its
// last ZooKeeper call.
func (e *Executor) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	if err := req.ValidateFor(e.Capabilities()); err != nil {
		return nil, fmt.Errorf("zookeeper: acquire: %w", err)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("zookeeper: acquire %q: %w", req.Key, executor.GaveUp(ctx))
	}
	if e.isClosed() {
		return nil, closedErr("acquire", req.Key)
	}
	if req.Permits > 0 {
		return e.acquirePermit(ctx, req)
	}
	p := &attemptState{parent: e.keyPath(req.Key), guid: newGUID(), name: e.writeName, askAlone: true}
	if req.Shared {
		p.name = readName
	}
	l, err := e.acquireAt(ctx, req, p, e.attempt)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// attemptFunc is an attempt: a lock's or read lock's
// (attempt), a permit's (permitAttempt).
type attemptFunc func(ctx context.Context, req executor.Request, p *attemptState) (*lease, error)

// acquireAt runs attempt for p and returns its lease, unless ctx ends or
// the executor closes first; see Acquire.
func (e *Executor) acquireAt(ctx context.Context, req executor.Request, p *attemptState, attempt attemptFunc) (*lease, error) {
	// actx ends with ctx or when acquireAt returns: the attempt learns both
	// of ctx ending and of being abandoned.
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	res := e.startAttempt(actx, req, p, attempt)
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
		if p.abandon() {
			e.voidPending(p)
		}
	case <-e.done:
		p.abandon() // nothing runs in the background any more
		return nil, closedErr("acquire", req.Key)
	}
	return nil, fmt.Errorf("zookeeper: acquire %q: %w", req.Key, executor.GaveUp(ctx))
}

// attemptResult is the outcome of an attempt run by startAttempt.
type attemptResult struct {
	l   *lease
	err error
}

// startAttempt runs the attempt in its own goroutine, since go-zookeeper's
// calls take no context. The returned channel is unbuffered: the result is
// delivered only if Acquire takes it; a lease acquired after actx ended
// (the caller is gone) is abandoned.
func (e *Executor) startAttempt(actx context.Context, req executor.Request, p *attemptState, attempt attemptFunc) <-chan attemptResult {
	res := make(chan attemptResult)
	go func() {
		l, err := attempt(actx, req, p)
		p.finish()
		select {
		case res <- attemptResult{l, err}:
		case <-actx.Done():
			if l != nil {
				l.abandon()
			}
		}
	}()
	return res
}

// attempt creates the node and queues until it holds the lock, fails, or
// ctx ends. On every failure it removes its node.
func (e *Executor) attempt(ctx context.Context, req executor.Request, p *attemptState) (*lease, error) {
	parent, guid := p.parent, p.guid
	sent := time.Now()
	name, alone, err := e.create(p, []byte(req.Owner))
	if err != nil {
		return nil, createErr(req.Key, err)
	}
	q := queuer{e: e, req: req, p: p, parent: parent, guid: guid, name: name, path: parent + "/" + name, alone: alone, created: sent}
	if p.isAbandoned() {
		// The create completed after the caller gave up.
		p.removing()
		_ = e.remove(q.path, 0)
		return nil, backendErr("acquire", req.Key, errAbandoned)
	}
	l, err := q.run(ctx)
	if err != nil {
		p.removing()
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
	req    executor.Request
	p      *attemptState
	parent string
	guid   string
	name   string
	path   string

	alone   aloneNode       // the create found the node its parent's only child
	created time.Time       // when the first create was sent
	session int64           // the node's session, once known
	stat    *zk.Stat        // the node's stat, once known
	own     <-chan zk.Event // a watch on the own node
}

// run loops: list the queue; hold the lock when first (a read lock: when no
// writer is before it), otherwise watch the predecessor (a read lock: the
// last writer before it) and list again when it goes.
func (q *queuer) run(ctx context.Context) (*lease, error) {
	key := q.req.Key
	if q.alone.zxid != 0 {
		return q.grantAlone()
	}
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

// grantAlone grants the lock to a node its create found alone under its
// parent: first in the queue, with no semaphore's leases beside it and no
// twin from a lost reply. Nodes created later queue behind it, and the
// create's reply told the fencing token and the session, so the one read
// of an uncontended lock, which sets the watch that reports the node's
// deletion, is sent without being waited for ([monitor.watchNew]). The
// lease counts from the create's send time.
func (q *queuer) grantAlone() (*lease, error) {
	q.session = q.alone.session
	q.stat = &zk.Stat{Czxid: q.alone.zxid, EphemeralOwner: q.alone.session}
	l, err := q.grant(q.created)
	if err != nil {
		return nil, err
	}
	q.e.bg.Go(func() { q.e.mon.watchNew(l) }) // closed: nothing watches any lease
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
