package redlock

import (
	"context"
	"time"

	"github.com/lock4go/lock4go/executor"
)

var _ executor.BatchRenewer = (*Executor)(nil)

// RenewBatch renews every item and returns one error per item, in order, as
// [lease.Renew] would: nil when a majority of the item's masters renewed it,
// an error wrapping executor.ErrLockNotHeld when fewer than a majority can
// still hold it, one wrapping executor.ErrBackend otherwise. Each master
// gets one pipeline of all its renewals (the Redis executor's RenewBatch),
// the masters in parallel; it returns once every item's outcome is decided
// and the other masters had a short grace to answer (see gather), and a
// master answering later drops the leases it no longer holds. The masters
// that lack a renewed lease are then asked for it, one goroutine per master
// (see Executor.repair). Leases of
// other executors are renewed one by one through their own Renew.
func (e *Executor) RenewBatch(ctx context.Context, items []executor.RenewItem) []error {
	start := time.Now()
	b := e.planRenewals(ctx, items)
	dctx, cancel := e.detach(ctx, 0)
	out := make(chan batchReply, len(e.nodes))
	sent := 0
	for i := range e.nodes {
		if len(b.batch[i]) > 0 {
			sent++
			e.work.run(func() { out <- batchReply{i, e.nodes[i].RenewBatch(dctx, b.batch[i])} })
		}
	}
	left := b.await(out, sent, start)
	wanted := make([][]repairItem, len(e.nodes))
	for j, l := range b.owned {
		if l != nil {
			if b.errs[j] = l.renewed(b.masters[j], b.leases[j], b.answers[j]); b.errs[j] == nil {
				l.wants(wanted, items[j].TTL)
			}
		}
	}
	e.repair(ctx, wanted)
	late(e, out, left, cancel, b.dropNotHeld)
	return b.errs
}

// renewBatch is one RenewBatch: per item, its lease, the masters renewed,
// their leases and answers; per master, its renewals and where each
// answer goes.
type renewBatch struct {
	quorum  int
	errs    []error
	owned   []*lease
	masters [][]int            // per item: the masters renewed
	leases  [][]executor.Lease // per item: their leases
	answers [][]error          // per item: their answers (errInFlight until they come)
	batch   [][]executor.RenewItem
	where   [][]itemPos
}

// itemPos is where a master's answer goes: an item, and the master's
// position among the item's masters.
type itemPos struct{ item, pos int }

// batchReply is one master's answers to its renewals.
type batchReply struct {
	node int
	errs []error
}

// planRenewals sorts items into each master's batch; items of other
// executors, and leases already lost, get their error at once.
func (e *Executor) planRenewals(ctx context.Context, items []executor.RenewItem) *renewBatch {
	b := &renewBatch{
		quorum: e.quorum, errs: make([]error, len(items)), owned: make([]*lease, len(items)),
		masters: make([][]int, len(items)), leases: make([][]executor.Lease, len(items)),
		answers: make([][]error, len(items)), batch: make([][]executor.RenewItem, len(e.nodes)),
		where: make([][]itemPos, len(e.nodes)),
	}
	for j, it := range items {
		l, ok := it.Lease.(*lease)
		if !ok || l.e != e {
			b.errs[j] = it.Lease.Renew(ctx, it.TTL)
			continue
		}
		if l.loss.Lost() {
			b.errs[j] = l.lostErr("renew")
			continue
		}
		idx, ls := l.held()
		b.owned[j], b.masters[j], b.leases[j], b.answers[j] = l, idx, ls, make([]error, len(idx))
		for k, i := range idx {
			b.batch[i] = append(b.batch[i], executor.RenewItem{Lease: ls[k], TTL: it.TTL + e.opts.MinDrift})
			b.where[i] = append(b.where[i], itemPos{j, k})
			b.answers[j][k] = errInFlight
		}
	}
	return b
}

// await receives the masters' replies until all sent came, or every item's
// outcome is decided and a grace passed (see collect). It returns how many
// replies are still to come.
func (b *renewBatch) await(out <-chan batchReply, sent int, start time.Time) int {
	return collect(out, sent, start, func(r batchReply) {
		for m, err := range r.errs {
			w := b.where[r.node][m]
			b.answers[w.item][w.pos] = err
		}
	}, b.decided)
}

// decided reports whether every item's outcome is known: a majority
// renewed it, or fewer than a majority can still renew it.
func (b *renewBatch) decided() bool {
	for j, l := range b.owned {
		if l == nil {
			continue
		}
		ok, open := 0, 0
		for _, err := range b.answers[j] {
			switch {
			case err == nil:
				ok++
			case err == errInFlight:
				open++
			}
		}
		if ok < b.quorum && ok+open >= b.quorum {
			return false
		}
	}
	return true
}

// dropNotHeld drops from their leases the masters of a reply that came
// after RenewBatch returned and no longer hold them.
func (b *renewBatch) dropNotHeld(r batchReply) {
	for m, err := range r.errs {
		if notHeld(err) {
			w := b.where[r.node][m]
			b.owned[w.item].drop(b.masters[w.item][w.pos], b.leases[w.item][w.pos])
		}
	}
}
