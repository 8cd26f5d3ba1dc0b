package etcd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

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

// enqueue writes the own entry and reads the head of the queue in the same
// round trip, as concurrency.Mutex does. A leftover entry of this lease (a
// clean-up that has not reached etcd) is taken over with its create
// revision and its place. It returns the entry's create revision and its
// place.
func (e *Executor) enqueue(ctx context.Context, q queue, own, owner string, id clientv3.LeaseID) (int64, place, error) {
	put := clientv3.OpPut(own, owner, clientv3.WithLease(id))
	resp, err := e.c.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(own), "=", 0)).
		Then(put, q.headOp()).
		Else(put, clientv3.OpGet(own, clientv3.WithKeysOnly()), q.headOp()).
		Commit()
	if err != nil {
		return 0, unknown, err
	}
	rev := resp.Header.Revision // the put's revision: the entry's creation
	head := resp.Responses[1].GetResponseRange().Kvs
	if !resp.Succeeded {
		kvs := resp.Responses[1].GetResponseRange().Kvs
		if len(kvs) == 0 { // cannot happen: the put is in the same transaction
			return 0, unknown, errEntryGone
		}
		rev, head = kvs[0].CreateRevision, resp.Responses[2].GetResponseRange().Kvs
	}
	return rev, q.placeOf(rev, head), nil
}

// turn is a read of the queue from the own entry's point of view.
type turn struct {
	pred *mvccpb.KeyValue // the member created last before the own entry; nil when first
	at   int64            // the revision of the read
	size int64            // keys in the range, longer locks' included
}

// predecessor reads the member created last before rev (for a read lock,
// shared, the writer created last before it). Every read also
// checks that the own entry still has create revision rev, so a lease that
// expired or was revoked while waiting is never mistaken for the lock (the
// Jepsen etcd 3.4.3 finding); it fails with errEntryGone then.
func (e *Executor) predecessor(ctx context.Context, q queue, own string, rev int64, shared bool) (turn, error) {
	limit, below := int64(1), rev
	var t turn
	for {
		opts := []clientv3.OpOption{
			clientv3.WithPrefix(), clientv3.WithKeysOnly(), clientv3.WithLimit(limit),
			clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortDescend),
			clientv3.WithMaxCreateRev(below - 1),
		}
		resp, err := e.c.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(own), "=", rev)).
			Then(clientv3.OpGet(q.dir, opts...)).
			Commit()
		if err != nil {
			return turn{}, err
		}
		if !resp.Succeeded {
			return turn{}, errEntryGone
		}
		rr := resp.Responses[0].GetResponseRange()
		t.at = resp.Header.Revision
		if t.size == 0 {
			t.size = rr.Count // etcd counts the range before the revision filter
		}
		if t.pred = q.firstBlocker(rr.Kvs, shared); t.pred != nil {
			return t, nil
		}
		if !rr.More || len(rr.Kvs) == 0 || rr.Kvs[len(rr.Kvs)-1].CreateRevision <= 1 {
			return t, nil
		}
		// A page of longer locks' entries (or of readers, for a reader)
		// only: read on, in larger pages.
		below, limit = rr.Kvs[len(rr.Kvs)-1].CreateRevision, 64
	}
}

// waitTurn waits until the own entry of create revision rev is the first
// member: it reads the predecessor, watches only that key for its delete
// (no herd), and reads again. With wait false it returns errBusy instead of
// waiting. ctx ending during a watch is returned as errWaitEnded; read
// errors are returned as they are.
func (e *Executor) waitTurn(ctx context.Context, q queue, own string, rev int64, ref leaseRef, wait, shared bool) error {
	for {
		t, err := e.predecessor(ctx, q, own, rev, shared)
		if err != nil {
			return err
		}
		if t.pred == nil {
			return nil
		}
		if !wait {
			return errBusy
		}
		err = e.waitDelete(ctx, t, ref)
		switch {
		case err == nil:
		case errors.Is(err, errWatch):
			// Read the queue again after a short pause: the predecessor may
			// be gone, or the watch may have been cut (no leader).
			select {
			case <-time.After(watchRetry):
			case <-ctx.Done():
				return errWaitEnded
			}
		default:
			return err
		}
	}
}

// watchRetry is the pause before reading the queue again after a watch
// ended without a delete event.
const watchRetry = 50 * time.Millisecond

// errWaitEnded: the caller's context ended while waiting for the turn.
var errWaitEnded = errors.New("wait ended")

// waitDelete waits until t.pred, read as the predecessor at revision t.at,
// is deleted (or is no longer the predecessor).
//
// The watch is opened without a start revision. A watch whose start is at
// or below the store's current revision is "unsynced" in etcd: its events
// wait for etcd's 100 ms catch-up loop. That is what gives
// concurrency.Mutex, which watches from the read revision, hand-off tails
// of up to 100 ms, and it also hits a watch from the read revision + 1
// whenever any write lands between the read and the watch. Without a start
// revision etcd starts the watch at its current revision + 1, which is
// synced unless a write races the registration inside etcd; under a steady
// write load that still happens now and then. So:
//
//   - the creation reply says at which revision the watch took over; when
//     that is after the read, pred is read again at once, so that a delete
//     in between is never missed;
//   - in a short queue (pollQueue keys at most), where the predecessor
//     may go within the first 100 ms while the watch may be unsynced, pred
//     is also read at growing intervals (defaultPollAfter), a handful of
//     reads that bound the tail. In a longer queue a new entry waits longer
//     than that, and its watch is synced by the time it matters.
//
// While it waits it keeps an grant alive, so a long queue cannot
// outlast a fixed-expire lease.
func (e *Executor) waitDelete(ctx context.Context, t turn, ref leaseRef) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	w := &predWatch{e: e, t: t, key: string(t.pred.Key), poll: time.NewTimer(time.Hour)}
	w.poll.Stop()
	defer w.poll.Stop()
	wch := e.c.Watch(wctx, w.key, clientv3.WithCreatedNotify(), clientv3.WithFilterPut())
	var renew <-chan time.Time
	if ref.grant != nil {
		timer := time.NewTimer(ref.grant.renewIn())
		defer timer.Stop()
		renew = timer.C
		w.renewTimer = timer
	}
	for {
		var (
			deleted bool
			err     error
		)
		select {
		case wr, ok := <-wch:
			deleted, err = w.watched(ctx, wr, ok)
		case <-w.poll.C:
			deleted, err = w.read(ctx)
		case <-renew:
			err = w.renewOwn(ctx, ref)
		case <-ctx.Done():
			return errWaitEnded
		case <-ref.gone():
			return errSessionLost
		case <-e.life.Done():
			return ErrClosed
		}
		if deleted || err != nil {
			return err
		}
	}
}

// predWatch is the state of one waitDelete: the watch on the predecessor
// key, and the reads that back it while the watch may be unsynced.
type predWatch struct {
	e          *Executor
	t          turn
	key        string
	poll       *time.Timer // the next backing read
	renewTimer *time.Timer // the next renewal of a fixed lock's grant, or nil
	created    bool        // the watch's creation reply came
	polls      int         // backing reads scheduled so far
	started    time.Time   // when the watch was created
	gap        bool        // the watch started after the read: pred must be read again
}

// watched handles a watch reply (ok false: the channel closed) and reports
// whether the predecessor was deleted.
func (w *predWatch) watched(ctx context.Context, wr clientv3.WatchResponse, ok bool) (bool, error) {
	switch {
	case !ok && ctx.Err() != nil:
		return false, errWaitEnded
	case !ok:
		return false, errWatch
	case wr.Err() != nil:
		return false, fmt.Errorf("%w: %w", errWatch, wr.Err())
	case wr.Created:
		return false, w.onCreated(wr.Header.Revision)
	}
	for _, ev := range wr.Events {
		if ev.Type == mvccpb.DELETE {
			return true, nil
		}
	}
	return false, nil
}

// onCreated starts the backing reads once the watch exists at revision
// rev: one at once if the watch started after the read of the queue, else
// the configured ones for a short queue.
func (w *predWatch) onCreated(rev int64) error {
	if w.created {
		return errWatch
	}
	w.created, w.started = true, time.Now()
	if rev > w.t.at {
		w.gap = true
		w.poll.Reset(0)
	} else if len(w.e.pollAfter) > 0 && w.t.size <= pollQueue {
		w.poll.Reset(w.e.pollAfter[0])
		w.polls = 1
	}
	return nil
}

// read reads the predecessor and reports whether it is gone (or no longer
// the same entry); it schedules the next backing read.
func (w *predWatch) read(ctx context.Context) (bool, error) {
	resp, err := w.e.c.Get(ctx, w.key, clientv3.WithKeysOnly())
	switch {
	case ctx.Err() != nil:
		return false, errWaitEnded
	case err != nil && w.gap:
		return false, fmt.Errorf("%w: %w", errWatch, err) // read the queue again
	case err == nil && (len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != w.t.pred.CreateRevision):
		return true, nil
	case err == nil:
		w.gap = false
	}
	if w.polls < len(w.e.pollAfter) && w.t.size <= pollQueue {
		w.poll.Reset(time.Until(w.started.Add(w.e.pollAfter[w.polls])))
		w.polls++
	}
	return false, nil
}

// renewOwn renews a waiting fixed lock's grant, so a long queue cannot
// outlast it, and schedules the next renewal.
func (w *predWatch) renewOwn(ctx context.Context, ref leaseRef) error {
	return w.e.renewWaiting(ctx, ref, w.renewTimer)
}

// renewWaiting renews the grant of a fixed lock that waits in its queue
// and sets timer to the next renewal.
func (e *Executor) renewWaiting(ctx context.Context, ref leaseRef, timer *time.Timer) error {
	if err := ref.grant.renew(ctx, e.c); err != nil {
		if ctx.Err() != nil {
			return errWaitEnded
		}
		return err
	}
	timer.Reset(ref.grant.renewIn())
	return nil
}

// pollQueue is the longest queue (in keys) whose waiters back a new watch
// with reads.
const pollQueue = 4

// defaultPollAfter is when, after its creation, a predecessor watch that
// may still be unsynced is backed by a read of the predecessor. etcd syncs a
// watch within 100 ms.
var defaultPollAfter = []time.Duration{3 * time.Millisecond, 10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond}
