package redlock

import (
	"context"
	"time"

	"github.com/lock4go/lock4go/executor"
)

var _ executor.DeferredReleaser = (*lease)(nil)

// ReleaseAfter implements [executor.DeferredReleaser]: every master that
// may hold the key keeps it for this owner until d, plus the drift
// ([Options.DriftFactor] of d and [Options.MinDrift]) for the masters'
// clocks, which may run faster than the others'; the lease is then done
// and forgotten. It returns nil when a majority did: no other owner can
// gather a majority before d has passed on every clock. A master that
// answers too late, or not at all, lets the key go at its TTL.
func (l *lease) ReleaseAfter(ctx context.Context, d time.Duration) error {
	if l.loss.Lost() {
		return l.lostErr("release after")
	}
	ls := l.finishAll()
	l.e.held.Remove(l)
	long := d + time.Duration(float64(d)*l.e.opts.DriftFactor) + l.e.opts.MinDrift
	long = long.Round(time.Millisecond) + time.Millisecond
	errs := l.e.fanOut(ctx, ls, func(ctx context.Context, nl executor.Lease) error {
		if dr, ok := nl.(executor.DeferredReleaser); ok {
			return dr.ReleaseAfter(ctx, long)
		}
		return nl.Renew(ctx, long)
	}, func(answer) {})
	return l.verdict("release after", errs)
}
