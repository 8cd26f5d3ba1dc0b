package executor

import (
	"context"
	"time"
)

// Request describes one acquisition.
type Request struct {
	// Key is the lock key exactly as the caller gave it. Executors may map it
	// into their own namespace (a ZooKeeper base path, an escaped name), and
	// document how.
	Key string

	// Owner is a unique, crypto-random value for this acquisition. Release
	// and renewal only touch a lock whose stored owner equals it.
	Owner string

	// TTL is the lease length. It is always positive.
	TTL time.Duration

	// Renewed is true when the Template's watchdog will keep the lease alive
	// (no explicit expire). Executors with self-renewing leases may use it to
	// pick a shared keep-alive session instead of a lease of their own.
	Renewed bool

	// Wait allows a queue-based executor to wait inside Acquire, in FIFO
	// order, until WaitUntil (or until ctx is done). When false (TryLock)
	// Acquire must make one attempt and return at once.
	Wait bool

	// WaitUntil ends a wait in the queue: at WaitUntil a queue-based
	// executor gives up, cleans up and returns [ErrNotAcquired]. Zero means
	// until ctx is done. The Template's ctx ends later than WaitUntil, by its
	// attempt grace, so that a round trip in flight when the wait ends still
	// completes and its answer counts: ctx bounds round trips, WaitUntil
	// bounds waiting.
	WaitUntil time.Time

	// Shared asks for a read lock of Key: readers exclude only writers
	// (requests without Shared or Permits, which take the key's write lock,
	// the same as a mutex). Once a writer waits, readers that come later
	// wait behind it. Only executors with [Capabilities.SharedLocks] get
	// such requests from the Template.
	Shared bool

	// Permits, when positive, asks for one of Permits permits of a
	// semaphore on Key: at most Permits holders at once, each with its own
	// lease and token. Holders of one key must agree on Permits: an
	// executor that sees a different count in use, or the key in use as a
	// lock, returns an error wrapping [ErrInvalidConfig]. Only executors
	// with [Capabilities.Semaphores] get such requests from the Template.
	Permits int

	// Followers is true when other callers of this process wait for the key
	// behind this request (the Template's local queue). An executor whose
	// waiters queue on the backend ([Capabilities.QueuedWaits]) may keep
	// the process queued when this request takes the key, so that the next
	// caller need not join the queue again.
	Followers bool
}

// Executor is a lock backend. Implementations must be safe for concurrent use.
type Executor interface {
	// Name identifies the executor in a Template ("redis", "etcd", ...).
	Name() string

	// Priority orders executors when none is chosen explicitly; lower wins.
	// The built-in executors document their defaults (redis.Priority, ...).
	Priority() int
	// Capabilities tells the Template how the executor's locks behave.
	Capabilities() Capabilities

	// Acquire makes one attempt to take req.Key for req.Owner. It returns a
	// Lease on success; an error wrapping [ErrNotAcquired] when another owner
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
