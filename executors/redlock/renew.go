package redlock

import (
	"context"
	"time"

	"github.com/lock4go/lock4go/executor"
)

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
	type at struct{ item, pos int }
	errs := make([]error, len(items))
	owned := make([]*lease, len(items))
	masters := make([][]int, len(items))           // per item: the masters renewed
	leases := make([][]executor.Lease, len(items)) // per item: their leases
	answers := make([][]error, len(items))         // per item: their answers
	batch := make([][]executor.RenewItem, len(e.nodes))
	where := make([][]at, len(e.nodes))
	for j, it := range items {
		l, ok := it.Lease.(*lease)
		if !ok || l.e != e {
			errs[j] = it.Lease.Renew(ctx, it.TTL)
			continue
		}
		if l.loss.Lost() {
			errs[j] = l.lostErr("renew")
			continue
		}
		idx, ls := l.held()
		owned[j], masters[j], leases[j], answers[j] = l, idx, ls, make([]error, len(idx))
		for k, i := range idx {
			batch[i] = append(batch[i], executor.RenewItem{Lease: ls[k], TTL: it.TTL + e.opts.MinDrift})
			where[i] = append(where[i], at{j, k})
			answers[j][k] = errInFlight
		}
	}
	type reply struct {
		node int
		errs []error
	}
	dctx, cancel := e.detach(ctx, 0)
	out := make(chan reply, len(e.nodes))
	sent := 0
	for i := range e.nodes {
		if len(batch[i]) > 0 {
			sent++
			e.work.run(func() { out <- reply{i, e.nodes[i].RenewBatch(dctx, batch[i])} })
		}
	}
	// decided reports whether every item's outcome is known: a majority
	// renewed it, or fewer than a majority can still renew it.
	decided := func() bool {
		for j, l := range owned {
			if l == nil {
				continue
			}
			ok, open := 0, 0
			for _, err := range answers[j] {
				switch {
				case err == nil:
					ok++
				case err == errInFlight:
					open++
				}
			}
			if ok < e.quorum && ok+open >= e.quorum {
				return false
			}
		}
		return true
	}
	apply := func(r reply) {
		for m, err := range r.errs {
			w := where[r.node][m]
			answers[w.item][w.pos] = err
		}
	}
	var timer <-chan time.Time
	left := sent
	for left > 0 {
		if timer == nil && decided() {
			t := time.NewTimer(min(time.Since(start), maxGrace))
			defer t.Stop()
			timer = t.C
		}
		select {
		case r := <-out:
			apply(r)
			left--
			continue
		case <-timer:
		}
		break
	}
	wanted := make([][]repairItem, len(e.nodes))
	for j, l := range owned {
		if l != nil {
			if errs[j] = l.renewed(masters[j], leases[j], answers[j]); errs[j] == nil {
				l.wants(wanted, items[j].TTL)
			}
		}
	}
	e.repair(ctx, wanted)
	if left == 0 {
		cancel()
		return errs
	}
	drain := func() {
		defer cancel()
		for range left {
			r := <-out
			for m, err := range r.errs {
				if notHeld(err) {
					w := where[r.node][m]
					owned[w.item].drop(masters[w.item][w.pos], leases[w.item][w.pos])
				}
			}
		}
	}
	if !e.bg.Go(drain) {
		drain()
	}
	return errs
}
