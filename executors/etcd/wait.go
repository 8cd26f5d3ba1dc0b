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

// enqueue writes the own entry (keeping its create revision if a leftover
// of this lease is still there) and reads the head of the queue in the same
// round trip, as concurrency.Mutex does. It returns the entry's create
// revision and its place.
func (e *Executor) enqueue(ctx context.Context, q queue, own, owner string, id clientv3.LeaseID) (int64, place, error) {
	resp, err := e.c.Txn(ctx).Then(
		clientv3.OpPut(own, owner, clientv3.WithLease(id)),
		clientv3.OpGet(own, clientv3.WithKeysOnly()),
		q.headOp(),
	).Commit()
	if err != nil {
		return 0, unknown, err
	}
	kvs := resp.Responses[1].GetResponseRange().Kvs
	if len(kvs) == 0 { // cannot happen: the put is in the same transaction
		return 0, unknown, errEntryGone
	}
	rev := kvs[0].CreateRevision
	return rev, q.placeOf(rev, resp.Responses[2].GetResponseRange().Kvs), nil
}

// predecessor returns the member created last before rev (nil when the own
// entry is first) and the revision at which that was read. Every read also
// checks that the own entry still has create revision rev, so a lease that
// expired or was revoked while waiting is never mistaken for the lock
// (the Jepsen etcd 3.4.3 finding); it fails with errEntryGone then.
func (e *Executor) predecessor(ctx context.Context, q queue, own string, rev int64) (*mvccpb.KeyValue, int64, error) {
	limit, below := int64(1), rev
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
			return nil, 0, err
		}
		if !resp.Succeeded {
			return nil, 0, errEntryGone
		}
		rr := resp.Responses[0].GetResponseRange()
		if kv := q.firstMember(rr.Kvs); kv != nil {
			return kv, resp.Header.Revision, nil
		}
		if !rr.More || len(rr.Kvs) == 0 || rr.Kvs[len(rr.Kvs)-1].CreateRevision <= 1 {
			return nil, resp.Header.Revision, nil
		}
		// A page of longer locks' entries only: read on, in larger pages.
		below, limit = rr.Kvs[len(rr.Kvs)-1].CreateRevision, 64
	}
}

// waitTurn waits until the own entry of create revision rev is the first
// member: it reads the predecessor, watches only that key for its delete
// (no herd), and reads again. With wait false it returns errBusy instead of
// waiting. It returns the read or watch errors as they are; ctx ending
// during a watch is returned as errWaitEnded.
func (e *Executor) waitTurn(ctx context.Context, q queue, own string, rev int64, ref leaseRef, wait bool) error {
	for {
		pred, at, err := e.predecessor(ctx, q, own, rev)
		if err != nil {
			return err
		}
		if pred == nil {
			return nil
		}
		if !wait {
			return errBusy
		}
		err = e.waitDelete(ctx, string(pred.Key), at+1, ref)
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

// waitDelete waits for the delete of key at revision from or later. from is
// one past the revision the queue was read at: a watch that starts at or
// before the store's current revision starts "unsynced" and is served by
// etcd's 100 ms catch-up loop, one that starts after it is synced at once
// and hears the delete within a round trip. While it waits it keeps an own
// lease alive, so a long queue cannot outlast a fixed-expire lease.
func (e *Executor) waitDelete(ctx context.Context, key string, from int64, ref leaseRef) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	wch := e.c.Watch(wctx, key, clientv3.WithRev(from), clientv3.WithFilterPut())

	var (
		renew <-chan time.Time
		timer *time.Timer
	)
	if ref.own != nil {
		timer = time.NewTimer(ref.own.renewIn())
		defer timer.Stop()
		renew = timer.C
	}
	for {
		select {
		case wr, ok := <-wch:
			if !ok {
				if ctx.Err() != nil {
					return errWaitEnded
				}
				return errWatch
			}
			if err := wr.Err(); err != nil {
				return fmt.Errorf("%w: %w", errWatch, err)
			}
			for _, ev := range wr.Events {
				if ev.Type == mvccpb.DELETE {
					return nil
				}
			}
		case <-ctx.Done():
			return errWaitEnded
		case <-ref.gone():
			return errSessionLost
		case <-e.life.Done():
			return ErrClosed
		case <-renew:
			if err := ref.own.renew(ctx, e.c); err != nil {
				if ctx.Err() != nil {
					return errWaitEnded
				}
				return err
			}
			timer.Reset(ref.own.renewIn())
		}
	}
}
