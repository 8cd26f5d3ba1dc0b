package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
)

// CloseTimeout bounds the deletions of the lock nodes of the leases
// [Executor.Close] ends, all together.
const CloseTimeout = 2 * time.Second

// Close ends the executor, as every executor's Close does (see package
// executor, "Close"):
//
//   - From its start, Acquire, Inspect and ForceRelease fail with an error
//     wrapping [executor.ErrClosed], and so do the waits inside Acquire,
//     whose nodes are deleted.
//   - Every lease still held is reported lost (its AfterLost functions
//     start, and [executor.LostCause] wraps [executor.ErrClosed]), then its
//     node is deleted, so that the next node in the queue holds the lock
//     at once; the deletions run together within [CloseTimeout], and a
//     node whose deletion fails stays until its session ends (or until
//     Release deletes it). Renew and Release of such a lease return an
//     error wrapping [executor.ErrLockNotHeld].
//   - It stops the background work (the session monitor, and the
//     deletions still being retried, which are abandoned to the session's
//     end) and waits for it.
//
// It does not close the conn: the caller owns it, and its session ends
// when the caller closes it. Close returns within about [CloseTimeout],
// without waiting for other ZooKeeper calls in flight, whose goroutines end
// when the calls return (at once after conn.Close), with the errors of
// the deletions that failed. It is idempotent.
func (e *Executor) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		e.bg.Close()
		return nil
	}
	e.closed = true
	e.bg.Stop()
	close(e.done)
	held := e.mon.close()
	e.mu.Unlock()
	for _, l := range held {
		l.unwatch()
	}
	err := leases.EndAll(CloseTimeout, held, e.deleteClosed)
	e.bg.Close()
	return err
}

// deleteClosed deletes the node of l, a lease Close ended, within ctx.
func (e *Executor) deleteClosed(ctx context.Context, l *lease) error {
	var err error
	if cerr := e.call(ctx, func() { err = e.conn.Delete(l.path, -1) }); cerr != nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("zookeeper: close: deleting the node of %q: %w", l.key, err)
	}
	return nil
}

// closedErr is the error of op on key after Close.
func closedErr(op, key string) error {
	return fmt.Errorf("zookeeper: %s %q: %w", op, key, executor.ErrClosed)
}
