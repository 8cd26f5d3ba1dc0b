package etcd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/lifecycle"
	"github.com/lock4go/lock4go/internal/turns"
)

// sessionRetries bounds how often one attempt starts over on a fresh
// shared session after the one it used was lost.
const sessionRetries = 3

// Acquire implements [executor.Executor]. It writes the entry
// "<Prefix><Key>/<lease hex>" and holds the lock when that entry is the
// oldest of the key. With req.Wait it waits in the queue, watching only
// the entry just before its own, until it is first or ctx ends; without
// it, it makes one attempt and, when the key is busy, leaves nothing
// behind.
//
// Watchdog locks (req.Renewed) use the executor's shared keep-alive session
// for TTL req.TTL rounded up to whole seconds; other locks get a lease of
// their own with that TTL and no keep-alive. etcd raises a TTL below its
// minimum (2s with the default election timeout).
//
// When ctx ends while waiting, or a round trip fails, the own entry is
// deleted with a detached context, retried in the background until it is
// gone, so it never blocks others until its lease ends. A write whose reply
// was lost is also re-checked later by its session, in case it lands after
// that delete (see cleanup.go). Acquire never returns a Lease on a shared
// session already marked lost: it starts over on a fresh one.
//
// A request etcd refuses (a user without permission on the prefix, failed
// authentication) fails with [executor.ErrBackend] wrapping etcd's error
// (rpctypes.ErrPermissionDenied, say) and leaves nothing behind. When the
// client has no working connection at all (an endpoint whose TLS
// certificate it does not trust, say), clientv3 retries until ctx ends and
// reports only that; the error then also says that the client cannot
// connect, whose cause the client's own log names.
func (e *Executor) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	l, err := e.acquire(ctx, req)
	switch {
	case err != nil && e.isClosed():
		return nil, e.closedErr("acquire", req.Key) // whatever Close cut short
	case err != nil:
		return nil, e.explain(err)
	}
	return l, nil
}

// acquire is [Executor.Acquire] before errors are explained.
func (e *Executor) acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	if err := req.ValidateFor(e.Capabilities()); err != nil {
		return nil, fmt.Errorf("etcd: acquire: %w", err)
	}

	pfx := e.prefix + req.Key
	if ctx.Err() != nil {
		return nil, notAcquired(ctx, req.Key)
	}
	if e.isClosed() {
		return nil, e.closedErr("acquire", req.Key)
	}
	ttl := seconds(req.TTL)
	q := newQueue(pfx)
	if !req.Renewed {
		own, err := e.grantFixed(ctx, ttl)
		if err != nil {
			return nil, acquireErr(ctx, req.Key, err)
		}
		return e.attempt(ctx, req, q, leaseRef{id: own.id, grant: own}, 0, func() {}) // a lease of its own: slot 0 is free
	}
	for i := 0; ; i++ {
		s, err := e.session(ctx, ttl)
		if err != nil {
			if errors.Is(err, ErrClosed) {
				return nil, e.closedErr("acquire", req.Key)
			}
			return nil, acquireErr(ctx, req.Key, err)
		}
		ref := leaseRef{id: s.id, sess: s}
		retry := ctx.Err() == nil && i < sessionRetries
		wctx, cancel := withWaitUntil(ctx, req.WaitUntil)
		slot, unlock, err := e.lockEntry(wctx, q, req, ref)
		cancel()
		switch {
		case errors.Is(err, errSessionLost) && retry:
			continue
		case errors.Is(err, errSessionLost):
			return nil, fmt.Errorf("etcd: acquire %q: %w: %w", req.Key, executor.ErrBackend, context.Cause(s.lost))
		case err != nil: // busy in this process, or the wait for it ended
			return nil, notAcquired(wctx, req.Key)
		}
		l, err := e.attempt(ctx, req, q, ref, slot, unlock)
		if errors.Is(err, errSessionLost) && ctx.Err() == nil && i < sessionRetries {
			continue // start over on a fresh session
		}
		return l, err
	}
}

// lockEntry takes this process's turn on the entry req writes under the
// shared session of ref (entryLocks): the lease's entry for a lock,
// waiting with req.Wait while another attempt of this process uses it;
// for a read lock or permit the lowest slot no attempt, hold or clean-up
// of this process uses, which it never waits for (see queue.readEntry).
func (e *Executor) lockEntry(ctx context.Context, q queue, req executor.Request, ref leaseRef) (slot int, unlock func(), err error) {
	if !slotted(req) {
		unlock, err = e.entryLocks.lock(ctx, entryKey{lease: ref.id, pfx: q.dir}, req.Wait, ref.gone())
		return 0, unlock, err
	}
	for slot = 0; ; slot++ {
		unlock, err = e.entryLocks.lock(ctx, entryKey{lease: ref.id, pfx: q.entryLockName(req, slot)}, false, ref.gone())
		if !errors.Is(err, errBusy) {
			return slot, unlock, err
		}
	}
}

// seconds rounds d up to whole seconds, the unit of etcd's lease TTLs.
func seconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

// attempt writes the own entry under ref (in slot, for a read lock or
// permit) and, with req.Wait, waits for its turn. On any failure it
// removes what it may have written (void) and runs unlock once that is
// done; on success the lease runs it on release.
// It never returns a Lease on a shared session already marked lost.
func (e *Executor) attempt(ctx context.Context, req executor.Request, q queue, ref leaseRef, slot int, unlock func()) (executor.Lease, error) {
	own := q.entry(ref.id)
	switch {
	case req.Shared:
		own = q.readEntry(ref.id, slot)
	case req.Permits > 0:
		own = q.permitEntry(req.Permits, ref.id, slot)
	case e.recipeWrites:
		own = q.writeEntry(ref.id)
	}
	var (
		rev int64
		at  = unknown
		pos *position // the queue from the own entry, when the enqueue read it
		err error
	)
	if !req.Wait && !req.Shared && req.Permits == 0 {
		rev, at, err = e.tryPut(ctx, q, own, req.Owner, ref.id)
		switch {
		case err != nil:
			e.voidFailedWrite(ctx, q.entryLockName(req, slot), own, req.Owner, ref, unlock, err)
			return nil, e.writeErr(ctx, req.Key, ref, err)
		case at == behind:
			e.void(ctx, "", 0, ref, unlock) // nothing written
			return nil, notAcquired(ctx, req.Key)
		}
	}
	if at != first {
		rev, at, pos, err = e.enqueue(ctx, q, own, req, ref.id)
		if err != nil {
			e.voidFailedWrite(ctx, q.entryLockName(req, slot), own, req.Owner, ref, unlock, err)
			return nil, e.writeErr(ctx, req.Key, ref, err)
		}
	}
	if at != first {
		if err := e.awaitTurn(ctx, req, q, own, rev, ref, pos); err != nil {
			e.void(ctx, own, rev, ref, unlock)
			return nil, err
		}
	}
	if ref.sess != nil && ref.sess.lost.Err() != nil {
		// Lost between the write and now: etcd may already have ended the
		// lease, or may end it before the holder could hear of it.
		e.void(ctx, own, rev, ref, unlock)
		return nil, fmt.Errorf("etcd: acquire %q: %w: %w", req.Key, executor.ErrBackend, context.Cause(ref.sess.lost))
	}
	return e.hold(ctx, e.newLease(req.Key, own, rev, ref, unlock))
}

// awaitTurn waits, until req.WaitUntil at the latest, for the own entry to
// be first; ctx bounds the round trips. A fixed-expire lease that waited
// (longer than the safety margin) is then renewed once, so that it lasts
// its full TTL from the grant: the wait must not eat it.
func (e *Executor) awaitTurn(ctx context.Context, req executor.Request, q queue, own string, rev int64, ref leaseRef, pos *position) error {
	wctx, cancel := withWaitUntil(ctx, req.WaitUntil)
	var err error
	if req.Permits > 0 {
		err = e.waitPermit(wctx, q, own, rev, ref, req.Permits, req.Wait)
	} else {
		err = e.waitTurn(wctx, q, own, rev, ref, req.Wait, req.Shared, pos)
	}
	cancel()
	switch {
	case err != nil && ctx.Err() == nil && wctx.Err() != nil:
		return notAcquired(wctx, req.Key) // the wait ended, not the round trips' time
	case err != nil:
		return e.waitErr(ctx, req.Key, err)
	case ref.grant != nil && time.Since(ref.grant.start()) > executor.SafetyMargin(req.TTL):
		if err := ref.grant.renew(ctx, e); err != nil {
			return e.waitErr(ctx, req.Key, err)
		}
	}
	return nil
}

// withWaitUntil returns ctx bounded by until, or ctx itself for a zero
// until.
func withWaitUntil(ctx context.Context, until time.Time) (context.Context, context.CancelFunc) {
	if until.IsZero() {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, until)
}

// voidFailedWrite cleans up after a write of the own entry that failed with
// err. A write etcd refused (refused) left nothing to clean up but an own
// lease. Otherwise its outcome is unknown: under a shared session it
// records the write for the session's void rounds first (cleanup.go), since
// the write may still land after the clean-up; then it voids the entry.
func (e *Executor) voidFailedWrite(ctx context.Context, lockName, own, owner string, ref leaseRef, unlock func(), err error) {
	if refused(err) {
		e.void(ctx, "", 0, ref, unlock)
		return
	}
	if ref.sess != nil {
		ref.sess.noteVoid(voidWrite{entryLock: entryKey{lease: ref.id, pfx: lockName}, entry: own, owner: owner})
	}
	e.void(ctx, own, 0, ref, unlock)
}

// writeErr reports a failed write of the own entry. A shared lease that
// etcd no longer knows ends its session, so the caller starts over.
func (e *Executor) writeErr(ctx context.Context, key string, ref leaseRef, err error) error {
	if errors.Is(err, rpctypes.ErrLeaseNotFound) && ref.sess != nil {
		ref.sess.lose(err)
		return fmt.Errorf("etcd: acquire %q: %w: %w", key, executor.ErrBackend, errSessionLost)
	}
	return acquireErr(ctx, key, err)
}

// waitErr reports a failed wait for the turn.
func (e *Executor) waitErr(ctx context.Context, key string, err error) error {
	switch {
	case errors.Is(err, executor.ErrInvalidConfig):
		return fmt.Errorf("etcd: acquire %q: %w", key, err)
	case errors.Is(err, errBusy), errors.Is(err, errWaitEnded):
		return notAcquired(ctx, key)
	case errors.Is(err, ErrClosed):
		return e.closedErr("acquire", key)
	case errors.Is(err, errSessionLost), errors.Is(err, errEntryGone), errors.Is(err, errLeaseGone):
		return fmt.Errorf("etcd: acquire %q: lease ended while waiting: %w: %w", key, executor.ErrBackend, err)
	}
	return acquireErr(ctx, key, err)
}

// tryPut is the no-wait fast path: it writes the own entry only when the
// range holds no key at all, so a busy key costs one read and no write. It
// returns the entry's create revision when it wrote it (first), behind
// when another member is older, and unknown when the range holds only keys
// of longer locks or a leftover own entry (the caller then queues).
func (e *Executor) tryPut(ctx context.Context, q queue, own, owner string, id clientv3.LeaseID) (int64, place, error) {
	resp, err := e.c.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(q.dir), "=", 0).WithPrefix()).
		Then(clientv3.OpPut(own, owner, clientv3.WithLease(id))).
		Else(q.headOp()).
		Commit()
	if err != nil {
		return 0, unknown, err
	}
	if resp.Succeeded {
		return resp.Header.Revision, first, nil
	}
	kv := q.firstMember(resp.Responses[0].GetResponseRange().Kvs)
	if kv == nil || string(kv.Key) == own {
		return 0, unknown, nil
	}
	return 0, behind, nil
}

// enqueue writes the own entry of req under lease id and reads the head
// of the queue in the same round trip, as concurrency.Mutex does. A
// leftover entry of this lease (a clean-up that has not reached etcd) is
// taken over with its create revision and its place. It returns the
// entry's create revision and its place and, for a lock or read lock, the
// entry's position when the newest page of the queue, read in the same
// round trip, holds all its blockers (nil otherwise): a waiter then needs
// no read of its own before it watches.
func (e *Executor) enqueue(ctx context.Context, q queue, own string, req executor.Request, id clientv3.LeaseID) (int64, place, *position, error) {
	put := clientv3.OpPut(own, req.Owner, clientv3.WithLease(id))
	then, els := []clientv3.Op{put, q.headOp()}, []clientv3.Op{put, clientv3.OpGet(own, clientv3.WithKeysOnly()), q.headOp()}
	if req.Permits == 0 {
		then, els = append(then, q.newestOp()), append(els, q.newestOp())
	}
	resp, err := e.c.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(own), "=", 0)).Then(then...).Else(els...).Commit()
	if err != nil {
		return 0, unknown, nil, err
	}
	rev, rs := resp.Header.Revision, resp.Responses[1:] // the put's revision: the entry's creation
	if !resp.Succeeded {
		kvs := rs[0].GetResponseRange().Kvs
		if len(kvs) == 0 { // cannot happen: the put is in the same transaction
			return 0, unknown, nil, errEntryGone
		}
		rev, rs = kvs[0].CreateRevision, rs[1:]
	}
	at := q.placeOf(rev, rs[0].GetResponseRange().Kvs)
	if req.Permits > 0 {
		return rev, at, nil, nil
	}
	return rev, at, q.positionIn(rs[1].GetResponseRange(), rev, resp.Header.Revision, req.Shared), nil
}

// entryKey names one queue entry: a lock key under one lease. Two
// acquisitions of one key under one shared lease would write the same etcd
// key "<key>/<lease>", so the second would find the first's entry and take
// it for its own: attempts of this process take turns on an entry
// (entryLocks).
type entryKey struct {
	lease clientv3.LeaseID
	pfx   string
}

// entryLocks are the turns of this process's attempts on their queue
// entries. It is safe for concurrent use.
type entryLocks struct {
	turns turns.Turns[entryKey, struct{}]
}

// lock takes the entry k. When wait is false and the entry is in use it
// returns errBusy at once; otherwise it waits until the entry is free, ctx
// ends, or gone is closed. gone is closed when k's lease has ended (a lost
// or closed session): such an entry is never handed out again, even when
// its turn is free, so lock returns errSessionLost whenever gone is
// closed, before or after the wait. The returned unlock may be called any
// number of times; the first frees the entry.
func (t *entryLocks) lock(ctx context.Context, k entryKey, wait bool, gone <-chan struct{}) (unlock func(), err error) {
	if lifecycle.Closed(gone) {
		return nil, errSessionLost
	}
	turn, held := t.turns.Join(k)
	if !held {
		if !wait {
			t.turns.Leave(turn)
			return nil, errBusy
		}
		if err := turn.Wait(ctx, gone); err != nil {
			t.turns.Leave(turn)
			if errors.Is(err, turns.ErrGone) {
				return nil, errSessionLost
			}
			return nil, executor.ContextError(ctx)
		}
	}
	unlock = sync.OnceFunc(func() { t.turns.Release(turn) })
	if lifecycle.Closed(gone) {
		// Lost meanwhile (dropLease may have run before this turn was
		// made): never hand out an entry of an ended lease.
		unlock()
		return nil, errSessionLost
	}
	return unlock, nil
}

// dropLease forgets the entries of lease id. It is called once the lease's
// session is lost or closed, after its gone channel has closed: the locks
// that still hold an entry are lost and may never call Release (the
// Template ends them by AfterLost), and lock hands out no entry of id any
// more.
func (t *entryLocks) dropLease(id clientv3.LeaseID) {
	t.turns.Forget(func(k entryKey) bool { return k.lease == id })
}

// count returns how many entries are held or waited for.
func (t *entryLocks) count() int { return len(t.turns.States()) }
