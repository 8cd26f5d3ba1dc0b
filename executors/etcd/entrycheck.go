package etcd

import (
	"context"
	"errors"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// errDeleted is the loss cause of a lock whose entry was deleted behind its
// holder.
var errDeleted = errors.New("lock entry deleted behind its holder")

// maxCheckCompares bounds the compares of one entry check transaction:
// etcd refuses a transaction with more operations in a branch than its
// --max-txn-ops, 128 by default.
const maxCheckCompares = 128

// startCheck checks the entries in the background (so that a slow check
// never delays a keep-alive), unless a check is still running.
func (s *session) startCheck(until time.Time) {
	if !s.checking.CompareAndSwap(false, true) {
		return
	}
	if !s.e.bg.Go(func() {
		defer s.checking.Store(false)
		s.checkEntries(until)
	}) {
		s.checking.Store(false)
	}
}

// checkEntries checks, after a keep-alive, that the entry of every lock of
// the session still has its create revision, so that a lock deleted behind
// its holder (`lock4go release --force`, `etcdctl del`) is found lost
// within a keep-alive interval, where the keep-alive alone would keep it
// held. Each transaction compares up to maxCheckCompares entries and reads
// them only when a compare fails: one compare per held lock and keep-alive
// while all stand, no watch. A check that fails is tried at the next
// keep-alive; until is when that is due.
func (s *session) checkEntries(until time.Time) {
	ls := s.held.list()
	if len(ls) == 0 {
		return
	}
	ctx, cancel := context.WithDeadline(s.stopCtx, until)
	defer cancel()
	for len(ls) > 0 && ctx.Err() == nil {
		n := min(len(ls), maxCheckCompares)
		s.checkBatch(ctx, ls[:n])
		ls = ls[n:]
	}
}

// checkBatch checks the entries of ls in one transaction.
func (s *session) checkBatch(ctx context.Context, ls []*lease) {
	cmps := make([]clientv3.Cmp, len(ls))
	reads := make([]clientv3.Op, len(ls))
	for i, l := range ls {
		cmps[i] = l.isOwner()
		reads[i] = clientv3.OpGet(l.entry, clientv3.WithKeysOnly())
	}
	resp, err := s.e.c.Txn(ctx).If(cmps...).Else(reads...).Commit()
	if err != nil || resp.Succeeded {
		return
	}
	for i, r := range resp.Responses {
		kvs := r.GetResponseRange().GetKvs()
		switch {
		case len(kvs) == 0:
			ls[i].gone(fmt.Errorf("%w: %s (lock4go release --force, etcdctl del?)", errDeleted, ls[i].entry))
		case kvs[0].CreateRevision != ls[i].rev:
			ls[i].gone(fmt.Errorf("%w: %s, written again since (create revision %d, the lock's %d)",
				errDeleted, ls[i].entry, kvs[0].CreateRevision, ls[i].rev))
		}
	}
}
