package etcd

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/lock4go/lock4go/internal/leases"
)

// Close ends the executor, as every executor's Close does (see package
// executor, "Close"):
//
//   - From its start, Acquire, Inspect and ForceRelease fail with an error
//     wrapping [ErrClosed] ([executor.ErrClosed]), and so do the waits
//     inside Acquire, whose entries are deleted.
//   - Every lock still held is reported lost (its AfterLost functions
//     start, and [executor.LostCause] wraps [ErrClosed]) and then released:
//     the shared keep-alive sessions of watchdog locks are revoked, and so
//     are the leases of locks with a fixed expiry, which deletes their
//     entries at once, so that the next entry in each queue holds the
//     lock. The revokes run together, each within a clean-up timeout of
//     2s; a lease whose revoke fails ends with its TTL. Renew and Release
//     of such a lock return an error wrapping [executor.ErrLockNotHeld].
//   - It stops the background goroutines and waits for them.
//
// It does not close the etcd client: the caller owns it. Close returns
// within about the clean-up timeout plus the calls in flight, with the
// errors of the revokes that failed. It is idempotent: later calls return
// the first call's result.
func (e *Executor) Close() error {
	e.closeOnce.Do(func() {
		e.mu.Lock()
		e.closed = true
		e.bg.Stop()
		e.kill()
		sessions := make([]*session, 0, len(e.sessions))
		for _, s := range e.sessions {
			sessions = append(sessions, s)
		}
		clear(e.sessions)
		e.mu.Unlock()
		fixed := e.fixed.Take(errClosedHeld, (*lease).lossOf)

		errs := make([]error, len(sessions)+1)
		var wg sync.WaitGroup
		for i, s := range sessions {
			wg.Go(func() { errs[i] = s.close() })
		}
		errs[len(sessions)] = leases.EndAll(cleanupTimeout, fixed, e.endFixed)
		wg.Wait()
		e.bg.Close()
		e.closeErr = errors.Join(errs...)
	})
	return e.closeErr
}

// endFixed revokes the grant of l, a lock with a fixed expiry that Close
// ended, which deletes its entry.
func (e *Executor) endFixed(ctx context.Context, l *lease) error {
	err := e.remove(ctx, l.entry, l.rev, l.ref)
	l.finish()
	if err != nil {
		return fmt.Errorf("etcd: close: revoking the lease of %q: %w", l.key, err)
	}
	return nil
}

// lossOf returns l's loss, which Close records.
func (l *lease) lossOf() *leases.Loss { return &l.loss }
