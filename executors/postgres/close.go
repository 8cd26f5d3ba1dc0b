package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/kit"
)

// errClosedHeld is the loss cause of a lease held when its executor closed.
var errClosedHeld = fmt.Errorf("postgres: the lock was held when the executor closed, and Close released it: %w", executor.ErrClosed)

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
//     executor runs them, and what their acquisitions may have taken, or
//     take should they still land, stays locked until its lease ends.
//
// It does not close the pool: the caller owns it. Close returns within
// about one [Options.CleanupTimeout], however many statements are pending
// and whether or not the database answers, with the errors of the
// releases that failed. It is idempotent: later calls return nil at once.
func (e *Executor) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.closeBy.Store(time.Now().Add(e.opts.CleanupTimeout))
	e.bg.Stop()
	e.kill()
	e.mu.Unlock()
	held := e.held.Close()
	for _, l := range held {
		l.loss.Mark(errClosedHeld)
	}
	err := e.endHeld(held, e.waits.Close())
	e.bg.Close()
	return err
}

// endHeld releases the leases held at Close and leaves the wait queues of
// keys, all within the clean-up timeout. It returns the errors of the
// releases that failed; a lock no longer held is not one.
func (e *Executor) endHeld(held []*lease, keys []string) error {
	type job struct {
		l   *lease
		key string
	}
	jobs := make([]job, 0, len(held)+len(keys))
	for _, l := range held {
		jobs = append(jobs, job{l: l})
	}
	for _, k := range keys {
		jobs = append(jobs, job{key: k})
	}
	return kit.EndAll(e.opts.CleanupTimeout, jobs, func(ctx context.Context, j job) error {
		if j.l == nil {
			if _, err := e.pool.Exec(ctx, e.sql.leave, pgxExec, j.key, e.member, e.claimMs); err != nil {
				e.log.Debug("postgres: leaving a wait queue at Close failed; the entry is skipped when its turn comes", "key", j.key, "err", err)
			}
			return nil
		}
		if _, err := e.queryInt(ctx, e.sql.release, j.l.key, j.l.owner, e.claimMs, ""); err != nil {
			return fmt.Errorf("postgres: close: releasing %q: %w", j.l.key, err)
		}
		return nil
	})
}
