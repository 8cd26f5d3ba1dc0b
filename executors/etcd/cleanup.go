package etcd

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/lock4go/lock4go/internal/kit"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Clean-up retries in the background back off from cleanupBackoff to
// cleanupMaxBackoff.
const (
	cleanupBackoff    = 50 * time.Millisecond
	cleanupMaxBackoff = 2 * time.Second
)

// discard removes what an unsuccessful acquisition (or a failed release)
// may have left: for a shared lease the entry own, guarded by its create
// revision rev (or, when rev is unknown, by the lease: the caller holds the
// entry's slot, so no other acquisition of this process uses it); for an
// own lease the whole lease, which takes its entry with it, and any write
// still in flight fails. own is "" when nothing was written. It tries once
// with ctx if ctx is still alive, then keeps trying in the background with
// detached contexts until the entry is gone or its lease has surely ended;
// unlock runs once it is. A write under a shared lease that lands after
// this delete is left to the session's sweeps (uncertain.go).
func (e *Executor) discard(ctx context.Context, own string, rev int64, ref leaseRef, unlock func()) {
	if ctx.Err() == nil {
		if err := e.remove(ctx, own, rev, ref); err == nil {
			unlock()
			return
		}
	}
	e.discardLater(own, rev, ref, unlock)
}

// discardLater is discard's background half.
func (e *Executor) discardLater(own string, rev int64, ref leaseRef, unlock func()) {
	if !e.bg.Go(func() { e.removeLoop(own, rev, ref, unlock) }) {
		unlock() // closed: the shared sessions are revoked, own leases expire
	}
}

// remove makes one attempt at what discard does.
func (e *Executor) remove(ctx context.Context, own string, rev int64, ref leaseRef) error {
	if ref.own != nil {
		_, err := e.c.Revoke(ctx, ref.id)
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			return nil
		}
		return err
	}
	if own == "" {
		return nil
	}
	guard := clientv3.Compare(clientv3.CreateRevision(own), "=", rev)
	if rev == 0 {
		guard = clientv3.Compare(clientv3.LeaseValue(own), "=", ref.id)
	}
	_, err := e.c.Txn(ctx).If(guard).Then(clientv3.OpDelete(own)).Commit()
	return err
}

// removeLoop retries remove until it succeeds, the lease has surely ended
// (its keys go with it), or the executor is closed; then it runs unlock.
func (e *Executor) removeLoop(own string, rev int64, ref leaseRef, unlock func()) {
	defer unlock()
	backoff := kit.Backoff{Min: cleanupBackoff, Max: cleanupMaxBackoff}
	for n := 1; ; n++ {
		if ref.sess != nil && ref.sess.lost.Err() != nil {
			return // no longer kept alive: the lease and its entries end
		}
		if ref.own != nil && time.Now().After(ref.own.end()) {
			return
		}
		ctx, cancel := e.detached()
		err := e.remove(ctx, own, rev, ref)
		cancel()
		if err == nil || e.life.Err() != nil {
			return
		}
		if n == 1 {
			e.log.LogAttrs(context.Background(), slog.LevelWarn, "etcd: removing an abandoned queue entry failed; retrying in the background",
				slog.String("executor", e.name), slog.String("entry", own), slog.Any("error", err))
		}
		if !backoff.Wait(e.life.Done()) {
			return
		}
	}
}
