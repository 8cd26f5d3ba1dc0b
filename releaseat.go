package lock4go

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// WithLease gives the lock a lease of d, renewed by the watchdog every
// third of it until release, as [Config.Expire] is for locks taken without
// options: a holder that dies frees the key d after its last renewal at
// the latest. Zero means the Template's Expire; negative is
// [ErrInvalidConfig]. With [WithExpire] too, the last of the two counts.
// Executors whose backend keeps leases alive by itself (etcd keep-alive
// sessions, ZooKeeper sessions) use their session's TTL instead.
func WithLease(d time.Duration) LockOption { return LockOption{kind: optLease, d: d} }

// ReleaseAt releases the lock so that the key stays taken, by no one
// else, until end (a time of this process's clock, such as
// AcquiredAt().Add(d)), and is free after it: a release at a time,
// ShedLock's lockAtLeastFor. Where the executor can shorten a lease
// (executor.DeferredReleaser: Redis, Redlock, PostgreSQL, memory), the
// backend is asked to end the lease end - now from when it receives the
// request, by its own clock, and the Lock is released at once; the key
// then ends by itself even if this process dies. Elsewhere (etcd,
// ZooKeeper) the Lock stays held, renewed as before or to its fixed
// lease, and is released by a timer of this process at end: a process
// that dies before then frees the key when its lease or session ends.
//
// An end already passed releases at once, as [Lock.Release]. So does
// ReleaseAt of a Lock of [Template.LockAll]. A re-entered lock keeps the
// key until its last handle is released; end counts only for that handle.
// Errors are those of Release; a backend error leaves the key to its
// lease, which ends by itself.
func (l *Lock) ReleaseAt(ctx context.Context, end time.Time) error {
	if l.of != held(l.h) || !time.Now().Before(end) {
		return l.Release(ctx)
	}
	dr, ok := l.h.lease.(executor.DeferredReleaser)
	if !ok {
		return l.releaseLater(end)
	}
	if !l.released.CompareAndSwap(false, true) {
		return fmt.Errorf("%w: %q already released", ErrLockNotHeld, l.h.key)
	}
	return l.h.releaseAt(ctx, end, dr)
}

// releaseLater releases l by a timer at end, for executors that cannot
// shorten a lease.
func (l *Lock) releaseLater(end time.Time) error {
	if err := l.Err(); err != nil {
		return l.Release(context.Background())
	}
	h := l.h
	time.AfterFunc(time.Until(end), func() {
		if err := l.Release(context.Background()); err != nil && !errors.Is(err, ErrLockNotHeld) {
			h.t.cfg.Logger.LogAttrs(context.Background(), levelWarn, "lock4go: release at a time failed; the lease ends by itself",
				attrKey(h.key), attrExec(h.reg.name), attrErr(err))
		}
	})
	return nil
}

// releaseAt drops one handle and, with the last, asks the backend to end
// the lease at end.
func (h *hold) releaseAt(ctx context.Context, end time.Time, dr executor.DeferredReleaser) error {
	h.mu.Lock()
	h.refs--
	err, last := h.err, h.refs == 0
	h.mu.Unlock()
	switch {
	case !last:
		return nil
	case err != nil:
		return fmt.Errorf("%w: %q: %w", ErrLockNotHeld, h.key, err)
	}
	now := time.Now()
	if h.pastEnd(now) {
		h.lose("lease ran out by the local clock before release", nil, releaseLease)
		return fmt.Errorf("%w: %q: %w", ErrLockNotHeld, h.key, h.errValue())
	}
	h.t.untrack(h, now)
	rb := h.t.releaseContext(h.reg, ctx)
	// Rounded up: the backend counts from when it receives the request,
	// after this reading, so the key stays taken until end at least.
	if d := time.Until(end).Truncate(time.Millisecond) + time.Millisecond; d > time.Millisecond {
		err = dr.ReleaseAfter(rb.ctx, d)
	} else {
		err = h.lease.Release(rb.ctx)
	}
	rb.done()
	h.end(errReleased, endedByRelease)
	h.t.reportReleased(ctx, h, now, time.Now(), err)
	if err != nil {
		return fmt.Errorf("lock4go: release %q at a time: %w", h.key, err)
	}
	return nil
}
