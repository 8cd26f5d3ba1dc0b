package executor

import (
	"context"
	"time"
)

// Executor is a lock backend. Implementations must be safe for concurrent use.
type Executor interface {
	// Name identifies the executor in a Template ("redis", "etcd", ...).
	Name() string

	// Priority orders executors when none is chosen explicitly; lower wins.
	// The built-in executors document their defaults (redis.Priority, ...).
	Priority() int
	// Capabilities tells the Template how the executor's locks behave.
	Capabilities() Capabilities

	// Acquire makes one attempt to take req.Key for req.Owner: one round
	// trip, or a wait in the backend's queue bounded by [Request.WaitUntil]
	// ([WaitInAcquire]), or none at all when a queued executor
	// ([WaitQueued]) knows the key is still someone else's (it stands in the
	// key's queue and no release was handed to it since it last asked) and
	// answers "busy" at once. It returns a Lease on success; an error wrapping [ErrNotAcquired] when another owner
	// holds the key; an error wrapping [ErrBackend] when the backend could
	// not answer. When unsure whether the backend accepted the write (a lost
	// reply), Acquire must remove whatever it may have written for req.Owner
	// and report an error, never a Lease. When ctx ends during a wait,
	// or is cancelled during a round trip, Acquire cleans up and returns an
	// error wrapping [ErrNotAcquired] and the context's error. When ctx's
	// deadline passes during a round trip, the backend did not answer in
	// time: the error may wrap [ErrBackend] instead of [ErrNotAcquired], and
	// always wraps the context's error too.
	Acquire(ctx context.Context, req Request) (Lease, error)
}

// Lease is one held lock. Implementations must be safe for concurrent use.
type Lease interface {
	// Token is the fencing token: strictly increasing per key across owners.
	Token() int64

	// Start returns a local time no later than the moment the backend began
	// the lease's current TTL: unless released, lost or renewed, the backend
	// keeps the lock at least until Start plus the requested TTL. A lease
	// granted after a wait in a queue counts from the grant, never from the
	// time it joined the queue, so the wait does not eat a fixed lease. The
	// Template ends the lock by its local clock from Start.
	Start() time.Time

	// Renew extends the lease to ttl from now if this owner still holds it.
	// It returns an error wrapping [ErrLockNotHeld] when the lock is gone,
	// or [ErrBackend] when the backend could not answer.
	Renew(ctx context.Context, ttl time.Duration) error

	// Release deletes the lock if this owner still holds it (compare and
	// delete) and wakes waiters. It returns an error wrapping
	// [ErrLockNotHeld] when the lock was no longer held by this owner.
	Release(ctx context.Context) error

	// AfterLost arranges for f to run once, in a goroutine of its own or of
	// the executor's, when the executor learns by itself that the lease is
	// gone (session expired, node deleted, lease revoked, or the executor
	// closed: see the package documentation, "Close"); if it is already
	// gone, f runs at once. stop cancels the call and reports whether it did
	// so before f started, like the stop of [context.AfterFunc]. An executor
	// that never learns of a loss by itself returns a stop that does nothing
	// and reports true ([NeverLost]); the Template then relies on renewals
	// and its local clock.
	AfterLost(f func()) (stop func() bool)
}

// NeverLost is the stop returned by [Lease.AfterLost] of a lease whose loss
// the executor never learns of by itself: there is nothing to cancel.
func NeverLost() bool { return true }
