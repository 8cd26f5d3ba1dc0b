package redis

import (
	"context"
	"errors"
	"fmt"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/kit"
)

// errClosedHeld is the loss cause of a lease held when its executor closed.
var errClosedHeld = fmt.Errorf("redis: the lock was held when the executor closed, and Close released it: %w", executor.ErrClosed)

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
//     its context finishes first), voids of lost replies (a round in
//     progress finishes; voids waiting for a retry are dropped with a
//     warning, and their keys stay locked until their TTL at worst).
//
// It does not close the client: the caller owns it. Close returns within
// about [Options.CleanupTimeout] plus the calls already in flight (each
// bounded by the client's timeouts; with a client without
// ContextTimeoutEnabled the releases too are bounded by its ReadTimeout
// rather than by the clean-up timeout), with the errors of the releases
// that failed and of the pub/sub connection's close. It is idempotent: later
// calls return nil at once.
func (e *Executor) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	close(e.done)
	e.bg.Stop()
	e.stopIdle()
	e.mu.Unlock()
	held := e.held.Close()
	for _, l := range held {
		l.loss.Mark(errClosedHeld)
	}
	err := e.endHeld(held, e.waits.Close())
	err = errors.Join(err, e.hub.close())
	if e.shards != nil {
		err = errors.Join(err, e.shards.close())
	}
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
			e.leave(ctx, j.key)
			return nil
		}
		r := j.l.release(ctx)
		if r.err != nil {
			return fmt.Errorf("redis: close: releasing %q: %w", j.l.key(), r.err)
		}
		return nil
	})
}

// refuseLate releases l, acquired while Close ran, and returns the error
// of the acquisition: no lease is handed out after Close has taken the
// held ones.
func (e *Executor) refuseLate(l *lease) error {
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.CleanupTimeout)
	defer cancel()
	_ = l.release(ctx)
	return closedErr("acquire", l.key())
}
