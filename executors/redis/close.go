package redis

import (
	"context"
	"errors"

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
//   - Every lock still held through the executor is reported lost (its
//     AfterLost functions start, and [executor.LostCause] wraps
//     [executor.ErrClosed]), then released by owner with the release
//     script, which hands the key to the next executor in its wait queue;
//     and the executor leaves the wait queues it stands in. These round
//     trips run together within [Options.CleanupTimeout]; a lock whose
//     release fails keeps its key until its TTL. Renew and Release of such
//     a lease return an error wrapping [executor.ErrLockNotHeld].
//   - It stops the shared pub/sub connection and the background work and
//     waits for them: the start-up check, the workers (a call abandoned by
//     its context finishes first), and the voids of lost replies, which get
//     one more round (a round in progress goes on) that ends
//     [Options.CleanupTimeout] after Close began. The voids left then are
//     dropped with a warning: no other executor runs them, and what their
//     attempts may have taken stays locked until its TTL at worst.
//
// It does not close the client: the caller owns it. Close returns within
// about [Options.CleanupTimeout] plus the calls already in flight (each
// bounded by the client's timeouts; with a client without
// ContextTimeoutEnabled the releases and voids too are bounded by its
// ReadTimeout rather than by the clean-up timeout), with the errors of the
// releases that failed and of the pub/sub connection's close. It is
// idempotent: later calls return nil at once.
func (e *Executor) Close() error { return e.core.Close(e.stopWorkers, e.closeHubs) }

// stopWorkers refuses hand-offs to workers and ends the parked ones, as
// Close begins (before the background work refuses new goroutines: a
// hand-off that saw the executor open starts its worker).
func (e *Executor) stopWorkers() {
	e.mu.Lock()
	e.closed = true
	e.stopIdle()
	e.mu.Unlock()
}

// closeHubs closes the pub/sub connections, once Close has released what
// it held.
func (e *Executor) closeHubs() error {
	err := e.hub.close()
	if e.shards != nil {
		err = errors.Join(err, e.shards.close())
	}
	return err
}

// newCore returns the executor's core, with its round trips.
func (e *Executor) newCore() *queued.Core[*lease] {
	return queued.New(queued.Config[*lease]{
		Prefix:         "redis",
		Log:            e.log,
		CleanupTimeout: e.opts.CleanupTimeout,
		Waits:          &e.waits.Waits,
		Statements: queued.Statements[*lease]{
			Void:    e.void,
			Release: e.releaseHeld,
			Leave:   e.leaveQueue,
		},
	})
}

// The lease as the executor's core sees it ([queued.Lease]), and the
// core's other round trips.

// Key returns the lock key.
func (l *lease) Key() string { return l.key }

// Loss returns the lease's loss, which Close marks.
func (l *lease) Loss() *leases.Loss { return &l.loss }

// releaseHeld releases l by owner, at Close or for an attempt that
// completed after it began. A lock no longer held is not an error.
func (e *Executor) releaseHeld(ctx context.Context, l *lease) error {
	return l.release(ctx).err
}

// leaveQueue removes the executor from key's wait queue, best effort
// ([Executor.leave] logs a failure).
func (e *Executor) leaveQueue(ctx context.Context, key string) error {
	e.leave(ctx, key)
	return nil
}
