package zookeeper

import (
	"context"
	"errors"
	"fmt"

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
// req.TTL must be positive, as for every executor, but is otherwise
// ignored, since the lease lasts as long as the session.
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
	if err := req.Validate(); err != nil {
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
	p := &attemptState{parent: e.keyPath(req.Key), guid: newGUID(), name: e.writeName}
	if req.Shared {
		p.name = readName
	}
	l, err := e.acquireAt(ctx, req, p, e.attempt)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// attemptFunc is an attempt of an acquisition: a lock's or read lock's
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
	name, err := e.create(p, []byte(req.Owner))
	if err != nil {
		return nil, createErr(req.Key, err)
	}
	q := queuer{e: e, req: req, p: p, parent: parent, guid: guid, name: name, path: parent + "/" + name}
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
