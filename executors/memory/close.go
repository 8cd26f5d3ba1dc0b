package memory

import (
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// Close ends the executor, at once and for good, as every executor's
// Close does (see package executor, "Close"): every lock still held is
// reported lost (its AfterLost functions run before Close returns, and
// [executor.LostCause] wraps [executor.ErrClosed]) and dropped from the
// table; Renew and Release of such a lease return an error wrapping
// [executor.ErrLockNotHeld]. Waiters inside Acquire return an error
// wrapping [executor.ErrClosed], and so do later calls of Acquire, Inspect
// and ForceRelease; WatchRelease channels fire. Close is idempotent and
// returns nil.
func (e *Executor) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	runs := e.closeLocked()
	e.mu.Unlock()
	for _, run := range runs {
		run()
	}
	return nil
}

// closeLocked marks the executor closed, stops the expiries, drops every
// holder and queue, and wakes the watchers; e.mu is held. It returns the
// lost leases' AfterLost functions, to run once e.mu is released.
func (e *Executor) closeLocked() (runs []func()) {
	e.closed = true
	close(e.done)
	if e.exp.timer != nil {
		e.exp.timer.Stop()
	}
	for _, l := range e.exp.heap {
		l.index = -1
	}
	e.exp.heap, e.exp.planned = nil, time.Time{}
	for _, en := range e.keys {
		for _, l := range append([]*lease{en.writer}, en.shared...) {
			if l == nil {
				continue
			}
			l.held = false
			runs = append(runs, l.loss.End(errClosed))
		}
		// The waiters see done and leave: nothing is granted any more.
		en.writer, en.shared, en.queue = nil, nil, nil
	}
	for _, ws := range e.watchers {
		for ch := range ws {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	return runs
}

// closedErr is the error of op on key after Close.
func closedErr(op, key string) error {
	return fmt.Errorf("memory: %s %q: %w", op, key, executor.ErrClosed)
}
