package etcd

import (
	"context"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
)

// A permit of a semaphore of n on key k is an entry
// "<Prefix>k/permits-<n>/<lease hex>-<slot>" under its lease (etcd's
// recipes have no semaphore; the layout is lock4go's). It is a member of
// k's queue like a lock's entry, so a lock or read lock of k waits for the
// permits, and it holds a permit once fewer than n members are older than
// it. Every member older than it must be a permit of the same n: anything
// else is a kind mismatch (ErrInvalidConfig).

// waitPermit waits, until ctx ends, for fewer than n members to be older
// than the own entry of create revision rev; with wait false it returns
// errBusy instead of waiting. Every read checks that the own entry still
// has create revision rev (errEntryGone otherwise). A wait watches k's
// range for deletes from the read's revision on, so no release between the
// read and the watch is missed; a waiting fixed lock's grant is renewed
// meanwhile, as in waitTurn.
func (e *Executor) waitPermit(ctx context.Context, q queue, own string, rev int64, ref leaseRef, n int, wait bool) error {
	for {
		resp, err := e.c.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(own), "=", rev)).
			Then(clientv3.OpGet(q.dir, clientv3.WithPrefix(), clientv3.WithKeysOnly(), clientv3.WithMaxCreateRev(rev-1))).
			Commit()
		if err != nil {
			return err
		}
		if !resp.Succeeded {
			return errEntryGone
		}
		older := 0
		for _, kv := range resp.Responses[0].GetResponseRange().Kvs {
			if !q.member(kv.Key) {
				continue
			}
			if m := q.permits(kv.Key); m != n {
				return kindErr(q, kv.Key, n)
			}
			older++
		}
		if older < n {
			return nil
		}
		if !wait {
			return errBusy
		}
		if err := e.awaitDeletes(ctx, q, resp.Header.Revision+1, ref); err != nil {
			return err
		}
	}
}

// kindErr reports the member k of another kind than a permit of n.
func kindErr(q queue, k []byte, n int) error {
	what := "a lock or read lock"
	if m := q.permits(k); m > 0 {
		what = fmt.Sprintf("a semaphore of %d permits", m)
	}
	return fmt.Errorf("%s is in use as %s, not a semaphore of %d: %w", q.dir, what, n, executor.ErrInvalidConfig)
}

// awaitDeletes waits for the delete of a member of q's range from revision
// from on (a watch of the range, which a semaphore's waiters share: any of
// the permits may be returned first).
func (e *Executor) awaitDeletes(ctx context.Context, q queue, from int64, ref leaseRef) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	wch := e.c.Watch(wctx, q.dir, clientv3.WithPrefix(), clientv3.WithRev(from), clientv3.WithFilterPut())
	var renew <-chan time.Time
	var timer *time.Timer
	if ref.grant != nil {
		timer = time.NewTimer(ref.grant.renewIn())
		defer timer.Stop()
		renew = timer.C
	}
	for {
		select {
		case wr, ok := <-wch:
			switch {
			case !ok && ctx.Err() != nil:
				return errWaitEnded
			case !ok || wr.Err() != nil:
				// Read again after a pause: the watch was cut (no leader, a
				// compacted revision).
				select {
				case <-time.After(watchRetry):
					return nil
				case <-ctx.Done():
					return errWaitEnded
				}
			}
			for _, ev := range wr.Events {
				if ev.Type == mvccpb.DELETE && q.member(ev.Kv.Key) {
					return nil
				}
			}
		case <-renew:
			if err := e.renewWaiting(ctx, ref, timer); err != nil {
				return err
			}
		case <-ctx.Done():
			return errWaitEnded
		case <-ref.gone():
			return errSessionLost
		case <-e.life.Done():
			return ErrClosed
		}
	}
}
