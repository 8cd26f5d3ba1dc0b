package queued

import (
	"context"

	"github.com/lock4go/lock4go/executor"
)

// Renewals sorts the items of a RenewBatch ([executor.BatchRenewer]) for
// the executor's one batched round trip: the leases of other executors
// (mine reports false) are renewed one by one through their own Renew,
// and those Close ended get their [Core.LostErr], both here. It returns
// one error per item (nil for the items left to the executor), and the
// indexes and leases of the items left.
func (c *Core[L]) Renewals(ctx context.Context, items []executor.RenewItem, mine func(executor.Lease) (L, bool)) (errs []error, idx []int, own []L) {
	errs = make([]error, len(items))
	idx = make([]int, 0, len(items))
	own = make([]L, 0, len(items))
	for i, it := range items {
		l, ok := mine(it.Lease)
		switch {
		case !ok:
			errs[i] = it.Lease.Renew(ctx, it.TTL)
		case l.Loss().Lost():
			errs[i] = c.LostErr("renew", l)
		default:
			idx = append(idx, i)
			own = append(own, l)
		}
	}
	return errs, idx, own
}
