package etcd

import (
	"context"
	"errors"
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
	// blockers are the members the own entry waits for, newest first: the
	// member created last before it (for a read lock, the writer created
	// last before it), and when that is a reader, for a writer, every
	// reader before it back to the first older writer, which is included.
	// Empty when the own entry holds the lock.
	blockers []*mvccpb.KeyValue
	at       int64 // the revision of the read
	size     int64 // keys in the range, longer locks' included
}

// pred returns the blocker created last, or nil.
func (t turn) pred() *mvccpb.KeyValue {
	if len(t.blockers) == 0 {
		return nil
	}
	return t.blockers[0]
}

// blockerPage is the page of the reads after the first: of the members
// created before an entry, newest first.
const blockerPage = 64

// blockers reads the blockers of the own entry of create revision rev
// (see turn.blockers; shared is a read lock's wait). Every read also checks
// that the own entry still has create revision rev, so a lease that expired
// or was revoked while waiting is never mistaken for the lock (the Jepsen
// etcd 3.4.3 finding); it fails with errEntryGone then. A plain queue costs
// one read of one key (limit 1); a writer behind readers reads on, in
// pages of blockerPage. A re-read of readers known to block a writer
// starts with limit blockerPage: one round trip.
func (e *Executor) blockers(ctx context.Context, q queue, own string, rev int64, shared bool, limit int64) (turn, error) {
	below := rev
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
		if t.at == 0 {
			t.at = resp.Header.Revision
			t.size = rr.Count // etcd counts the range before the revision filter
		}
		if t.addBlockers(q, rr.Kvs, shared) {
			return t, nil
		}
		if !rr.More || len(rr.Kvs) == 0 || rr.Kvs[len(rr.Kvs)-1].CreateRevision <= 1 {
			return t, nil
		}
		// A page of longer locks' entries, of readers for a reader, or of
		// readers a writer waits for: read on, in larger pages.
		below, limit = rr.Kvs[len(rr.Kvs)-1].CreateRevision, blockerPage
	}
}

// addBlockers adds the blockers among kvs (a page of the range, newest
// first) and reports whether the set is complete: a read lock waits for
// the last writer before it only; a writer for the member created last
// before it and, when that is a reader, for every reader before it back to
// the first older writer.
func (t *turn) addBlockers(q queue, kvs []*mvccpb.KeyValue, shared bool) bool {
	for _, kv := range kvs {
		if !q.member(kv.Key) || (shared && q.reader(kv.Key)) {
			continue
		}
		t.blockers = append(t.blockers, kv)
		if shared || !q.reader(kv.Key) {
			return true
		}
	}
	return false
}

// waitTurn waits until the own entry of create revision rev is the first
// member: it reads its blockers, watches only them (the predecessor's key,
// so a release wakes only the next waiter; the queue's range when several
// readers block a writer, so that one watch sees them all go), and reads
// again. With wait false it returns errBusy instead of waiting. ctx ending
// during a watch is returned as errWaitEnded; read errors are returned as
// they are.
func (e *Executor) waitTurn(ctx context.Context, q queue, own string, rev int64, ref leaseRef, wait, shared bool) error {
	limit := int64(1)
	for {
		t, err := e.blockers(ctx, q, own, rev, shared, limit)
		if err != nil {
			return err
		}
		if t.pred() == nil {
			return nil
		}
		if !wait {
			return errBusy
		}
		if len(t.blockers) > 1 {
			limit = blockerPage // readers blocked a writer: read them again in one page
		}
		w := &blockWatch{e: e, q: q, t: t, own: own, rev: rev, shared: shared}
		err = w.wait(ctx, ref)
		switch {
		case err == nil:
		case errors.Is(err, errWatch):
			// Read the queue again after a short pause: the blockers may
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

// renewWaiting renews the grant of a fixed lock that waits in its queue
// and sets timer to the next renewal.
func (e *Executor) renewWaiting(ctx context.Context, ref leaseRef, timer *time.Timer) error {
	if err := ref.grant.renew(ctx, e); err != nil {
		if ctx.Err() != nil {
			return errWaitEnded
		}
		return err
	}
	timer.Reset(ref.grant.renewIn())
	return nil
}
