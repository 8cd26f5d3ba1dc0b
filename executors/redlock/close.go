package redlock

import (
	"context"
	"errors"
	"fmt"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/lifecycle"
)

// errClosedHeld is the loss cause of a lease held when its executor closed.
var errClosedHeld = fmt.Errorf("redlock: the lock was held when the executor closed, and Close released it: %w", executor.ErrClosed)

// Close ends the executor, as every executor's Close does (see package
// executor, "Close"). From its start, Acquire, Inspect and ForceRelease
// fail with an error wrapping executor.ErrClosed and the channels of
// WatchRelease are ready. Every lock still held is reported lost (its
// AfterLost functions start, and executor.LostCause wraps
// executor.ErrClosed), then released on every master that may hold it,
// within the masters' clean-up timeout ([redis.Options.CleanupTimeout] of
// Options.Node); Renew and Release of such a lease return an error
// wrapping executor.ErrLockNotHeld. Then it stops the background work
// (stragglers of acquisitions that returned before every master answered,
// and the releases that compensate for them) and waits for it, and closes
// the masters' Redis executors, which leave their wait queues and release
// what grants came late. It does not close the clients: the caller owns
// them. Close returns within about twice the clean-up timeout, with the
// errors of the releases that failed; it is idempotent.
func (e *Executor) Close() error {
	e.close.Do(func() {
		close(e.done)
		held := e.held.Take(errClosedHeld, (*lease).lossOf)
		errs := []error{leases.EndAll(e.opts.Node.CleanupTimeout, held, e.endHeld)}
		e.bg.Close()
		e.work.stop()
		for _, n := range e.nodes {
			errs = append(errs, n.Close())
		}
		e.err = errors.Join(errs...)
	})
	return e.err
}

// endHeld releases l, held at Close, on every master that may hold it.
func (e *Executor) endHeld(ctx context.Context, l *lease) error {
	ls := l.finishAll()
	errs := make([]error, len(ls))
	e.each(len(ls), func(i int) {
		if err := ls[i].Release(ctx); err != nil && !errors.Is(err, executor.ErrLockNotHeld) {
			errs[i] = fmt.Errorf("redlock: close: releasing %q: %w", l.key, err)
		}
	})
	return errors.Join(errs...)
}

// isClosed reports whether Close has begun.
func (e *Executor) isClosed() bool { return lifecycle.Closed(e.done) }

// closedErr is the error of op on key after Close.
func closedErr(op, key string) error {
	return fmt.Errorf("redlock: %s %q: %w", op, key, executor.ErrClosed)
}

// lossOf returns l's loss, which Close records.
func (l *lease) lossOf() *leases.Loss { return &l.loss }
