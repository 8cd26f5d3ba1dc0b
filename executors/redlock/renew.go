package redlock

import (
	"context"

	"github.com/lock4go/lock4go/executor"
)

// RenewBatch renews every item and returns one error per item, in order, as
// [lease.Renew] would: nil when a majority of the item's masters renewed it,
// an error wrapping executor.ErrLockNotHeld when fewer than a majority can
// still hold it, one wrapping executor.ErrBackend otherwise. Each master
// gets one pipeline of all its renewals (the Redis executor's RenewBatch),
// the masters in parallel. Leases of other executors are renewed one by one
// through their own Renew.
func (e *Executor) RenewBatch(ctx context.Context, items []executor.RenewItem) []error {
	type at struct{ item, pos int }
	errs := make([]error, len(items))
	owned := make([]*lease, len(items))
	masters := make([][]int, len(items))   // per item: the masters renewed
	answers := make([][]error, len(items)) // per item: their answers
	batch := make([][]executor.RenewItem, len(e.nodes))
	where := make([][]at, len(e.nodes))
	for j, it := range items {
		l, ok := it.Lease.(*lease)
		if !ok || l.e != e {
			errs[j] = it.Lease.Renew(ctx, it.TTL)
			continue
		}
		idx, ls := l.held()
		owned[j], masters[j], answers[j] = l, idx, make([]error, len(idx))
		for k, i := range idx {
			batch[i] = append(batch[i], executor.RenewItem{Lease: ls[k], TTL: it.TTL + e.opts.MinDrift})
			where[i] = append(where[i], at{j, k})
		}
	}
	each(len(e.nodes), func(i int) {
		if len(batch[i]) == 0 {
			return
		}
		for m, err := range e.nodes[i].RenewBatch(ctx, batch[i]) {
			w := where[i][m]
			answers[w.item][w.pos] = err
		}
	})
	for j, l := range owned {
		if l != nil {
			errs[j] = l.renewed(masters[j], answers[j])
		}
	}
	return errs
}
