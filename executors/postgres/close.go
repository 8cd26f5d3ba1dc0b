package postgres

import (
	"context"

	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/queued"
)

// Close ends the executor, as every executor's Close does (see package
// executor, "Close"):
//
//   - From its start, Acquire, Inspect and ForceRelease fail with an error
//     wrapping [executor.ErrClosed], and the channels of WatchRelease
//     (open ones and later ones) are ready, so that waiters try again and
//     learn it.
//   - Every lock, read lock or permit still held through the executor is
//     reported lost (its AfterLost functions start, and
//     [executor.LostCause] wraps [executor.ErrClosed]), then released by
//     owner with the release statement, which hands the key to the next
//     executor in its wait queue; and the executor leaves the wait queues
//     it stands in. These statements run together within
//     [Options.CleanupTimeout]; a lock whose release fails keeps its key
//     until its lease ends. Renew and Release of such a lease return an
//     error wrapping [executor.ErrLockNotHeld].
//   - It stops the LISTEN connection and the background work and waits
//     for them: the sweeper, departures from queues, and the voids of lost
//     replies, which get one more round (a round in progress goes on) that
//     ends, with every statement in it, [Options.CleanupTimeout] after
//     Close began. The voids left then are dropped with a warning: no other
//     executor runs them, and what their attempts may have taken, or
//     take should they still land, stays locked until its lease ends.
//
// It does not close the pool: the caller owns it. Close returns within
// about one [Options.CleanupTimeout], however many statements are pending
// and whether or not the database answers, with the errors of the
// releases that failed. It is idempotent: later calls return nil at once.
func (e *Executor) Close() error { return e.core.Close(nil, nil) }

// The executor's round trips for its [queued.Core].

// void runs the void statement of every item, one after the other, while
// ctx lasts: it marks the owner void (so that the attempt, should it land
// later, takes nothing) and frees what the owner holds.
func (e *Executor) void(ctx context.Context, items []queued.Void[*lease]) []error {
	errs := make([]error, len(items))
	for i, it := range items {
		if err := ctx.Err(); err != nil {
			errs[i] = err // not sent: the round's deadline has passed
			continue
		}
		_, errs[i] = e.queryInt(ctx, e.sql.void, it.Lease.Key(), it.Lease.Owner(), leases.Millis(it.TTL), e.claimMs)
	}
	return errs
}

// releaseHeld releases l by owner, at Close or for an attempt that
// completed after it began.
func (e *Executor) releaseHeld(ctx context.Context, l *lease) error {
	_, err := e.queryInt(ctx, e.sql.release, l.Key(), l.Owner(), e.claimMs, "")
	return err
}

// leave removes the executor from key's wait queue.
func (e *Executor) leave(ctx context.Context, key string) error {
	_, err := e.pool.Exec(ctx, e.sql.leave, pgxExec, key, e.member, e.claimMs)
	return err
}
