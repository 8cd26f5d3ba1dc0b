package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
)

// The layout of Curator's InterProcessSemaphoreV2 under a key's lock
// parent: a mutex ("locks", InterProcessMutex nodes) that one acquirer
// holds while it counts, and the leases ("leases", one protected ephemeral
// sequential node "_c_<guid>-lease-<seq>" per permit).
const (
	semLocks  = "locks"
	semLeases = "leases"
	leaseName = "lease-"
)

// acquirePermit takes one of req.Permits permits of key as Curator's
// InterProcessSemaphoreV2 does: it takes the semaphore's mutex, adds its
// lease node, and holds a permit once the leases number at most
// req.Permits; with req.Wait it waits for the leases to change, holding
// the mutex, until then (or until req.WaitUntil or ctx's end, when it
// deletes its lease node); it releases the mutex either way. A key in use
// as a lock is ErrInvalidConfig. ZooKeeper does not store the number of
// permits: holders that disagree on it are not detected, as in Curator.
func (e *Executor) acquirePermit(ctx context.Context, req executor.Request) (executor.Lease, error) {
	parent := e.keyPath(req.Key)
	var (
		children []string
		err      error
	)
	if cerr := e.call(ctx, func() { children, _, err = e.conn.Children(parent) }); cerr != nil {
		return nil, fmt.Errorf("zookeeper: acquire %q: %w", req.Key, executor.AttemptError(ctx, cerr))
	}
	switch {
	case err != nil && !errors.Is(err, zk.ErrNoNode):
		return nil, backendErr("acquire", req.Key, err)
	case len(queue(children)) > 0:
		return nil, fmt.Errorf("zookeeper: %q is in use as a lock, not a semaphore: %w", req.Key, executor.ErrInvalidConfig)
	}
	mreq := req
	mreq.Permits = 0
	mutex, err := e.acquireAt(ctx, mreq, &attemptState{parent: parent + "/" + semLocks, guid: newGUID(), name: lockName, askAlone: true}, e.attempt)
	if err != nil {
		return nil, err
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = mutex.Release(rctx) // a failure is logged and retried by the executor
	}()
	l, err := e.acquireAt(ctx, req, &attemptState{parent: parent + "/" + semLeases, guid: newGUID(), name: leaseName}, e.permitAttempt)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// permitAttempt creates the lease node and waits until the leases number
// at most req.Permits. On every failure it removes its node.
func (e *Executor) permitAttempt(ctx context.Context, req executor.Request, p *attemptState) (*lease, error) {
	name, _, err := e.create(p, []byte(req.Owner))
	if err != nil {
		return nil, createErr(req.Key, err)
	}
	q := queuer{e: e, req: req, p: p, parent: p.parent, guid: p.guid, name: name, path: p.parent + "/" + name}
	if p.isAbandoned() {
		p.removing()
		_ = e.remove(q.path, 0)
		return nil, backendErr("acquire", req.Key, errAbandoned)
	}
	l, err := q.count(ctx)
	if err != nil {
		p.removing()
		_ = e.remove(q.path, q.session)
		return nil, err
	}
	return l, nil
}

// count loops: read the leases with a watch; hold a permit when there are
// at most req.Permits of them, otherwise wait for them to change.
func (q *queuer) count(ctx context.Context) (*lease, error) {
	key := q.req.Key
	for {
		if q.own == nil {
			exists, stat, own, err := q.e.conn.ExistsW(q.path)
			switch {
			case err != nil:
				return nil, backendErr("acquire", key, err)
			case !exists:
				return nil, backendErr("acquire", key, errVanished)
			}
			q.stat, q.own, q.session = stat, own, stat.EphemeralOwner
		}
		listed := time.Now()
		children, _, w, err := q.e.conn.ChildrenW(q.parent)
		switch {
		case err != nil:
			return nil, backendErr("acquire", key, err)
		case !slices.Contains(children, q.name):
			return nil, backendErr("acquire", key, errVanished)
		case len(children) <= q.req.Permits:
			return q.grant(listed)
		case !q.req.Wait:
			return nil, fmt.Errorf("zookeeper: %q: %w", key, executor.ErrNotAcquired)
		}
		if !q.p.park() {
			return nil, backendErr("acquire", key, errAbandoned)
		}
		err = q.wait(ctx, w)
		if !q.p.unpark(err == nil) && err == nil {
			err = backendErr("acquire", key, errAbandoned)
		}
		if err != nil {
			return nil, err
		}
	}
}
