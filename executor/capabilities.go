package executor

import (
	"context"
	"fmt"
	"time"
)

// Capabilities says how an executor's locks behave. What an executor can
// do beyond [Executor] is asked the Go way, by the optional interfaces of
// this package with the methods that do it ([Waiter], [BatchRenewer],
// [Inspector], [ForceReleaser]); Capabilities holds only what has no
// method of its own.
type Capabilities struct {
	// InProcess is true for executors that never block on I/O (the memory
	// executor): the Template does not bound their calls with context
	// deadlines and timers, which would cost more than the calls themselves.
	InProcess bool
	// SelfRenewing is true when the backend keeps the leases of watchdog
	// locks ([Request.Renewed]) alive by itself (a ZooKeeper session's
	// heartbeat, an etcd keep-alive): the Template's watchdog never calls
	// [Lease.Renew] on them, learns of their loss by [Lease.AfterLost], and
	// ends them at their [LocalEnder.LocalEnd], which their leases should
	// implement (without it, such a lease has no local end).
	SelfRenewing bool
	// Wait is where a caller waits for a busy key, the executor's waiting
	// model: [WaitInAcquire] when a request with [Request.Wait] that finds
	// the key busy waits inside Acquire, in the backend's queue;
	// [WaitQueued] when such an attempt joins a queue on the backend and
	// the executor's [Waiter] reports the releases handed to it; zero or
	// [WaitPolling] when the Template tries again at the retry interval,
	// woken early by WatchRelease if the executor is a Waiter. A
	// WaitQueued executor that is not a Waiter is an error of the
	// Template's New.
	Wait WaitModel
	// QueueNext is true, with Wait [WaitInAcquire], when each attempt joins the
	// backend's queue with an entry of its own (a ZooKeeper node), behind
	// the entries of earlier attempts of the process: while a caller of the
	// process holds a key, the Template lets the next caller already wait
	// in Acquire, in the queue behind it, so that a hand-off inside the
	// process costs the release and the waiter's wake-up instead of a
	// release and a fresh acquisition. An executor whose attempts of one
	// process share an entry (etcd's, per session) leaves it false.
	QueueNext bool
	// SharedLocks is true when the executor implements read locks
	// ([Request.Shared]) beside the write lock of the same key.
	SharedLocks bool
	// Semaphores is true when the executor implements semaphores
	// ([Request.Permits]).
	Semaphores bool
	// MinTTL is the shortest lease ([Request.TTL]) the executor grants as
	// asked, when its backend needs more than the package's [MinTTL]; zero
	// means MinTTL. etcd counts leases in whole seconds (1s); Redlock
	// needs a lease longer than its drift. A shorter lease is
	// [ErrInvalidConfig]: from the Template when the call is made, before
	// any attempt, and from Acquire before any round trip
	// ([Request.ValidateFor]).
	MinTTL time.Duration
}

// MinTTL is the shortest lease any executor grants: Redis (PX) and
// PostgreSQL count leases in whole milliseconds, and a lease has to outlast
// the attempt that takes it. [Capabilities.MinTTL] raises it for one
// executor.
const MinTTL = time.Millisecond

// ShortestTTL returns the shortest lease an executor with these
// capabilities grants: [Capabilities.MinTTL], or the package's [MinTTL]
// when that is longer.
func (c Capabilities) ShortestTTL() time.Duration { return max(c.MinTTL, MinTTL) }

// CheckTTL returns an error wrapping [ErrInvalidConfig] when ttl is shorter
// than [Capabilities.ShortestTTL], and nil otherwise.
func (c Capabilities) CheckTTL(ttl time.Duration) error {
	if least := c.ShortestTTL(); ttl < least {
		return fmt.Errorf("a lease of %v is shorter than the executor's shortest, %v: %w", ttl, least, ErrInvalidConfig)
	}
	return nil
}

// WaitModel says where a caller waits for a busy key: the three models of
// the package documentation's table. [Capabilities.Wait] is an executor's;
// the Template reads it once per executor and waits by it. The zero value
// is [WaitPolling].
type WaitModel uint8

// The waiting models.
const (
	// WaitPolling: the Template tries again at the retry interval, woken
	// early by [Waiter.WatchRelease] when the executor is a [Waiter].
	WaitPolling WaitModel = iota
	// WaitInAcquire: the executor waits inside Acquire, in its backend's
	// queue, until the key is its or [Request.WaitUntil] passes; the
	// Template waits for Acquire.
	WaitInAcquire
	// WaitQueued: a failed attempt queues the executor on the backend, and
	// the Template waits until [Waiter.WatchRelease] reports the release
	// handed to it, or the retry interval passes. A queued executor may
	// answer a waiting attempt "busy" without a round trip while it stands
	// in the key's queue and no release was handed to it.
	WaitQueued
)

// String returns "in-acquire", "queued" or "polling".
func (m WaitModel) String() string {
	switch m {
	case WaitInAcquire:
		return "in-acquire"
	case WaitQueued:
		return "queued"
	case WaitPolling:
		return "polling"
	}
	return fmt.Sprintf("WaitModel(%d)", uint8(m))
}

// Waiter is implemented by executors that can tell when a key is released
// (Redis pub/sub, a watch).
type Waiter interface {
	// WatchRelease registers interest in releases of key and returns a
	// channel that receives a value (or is closed) after a release that
	// happens after WatchRelease returned. Delivery is best effort: the
	// Template still retries at its fixed interval, so a missed notification
	// costs latency, never a hang. stop must be called exactly once; it must
	// not block on the network.
	WatchRelease(ctx context.Context, key string) (released <-chan struct{}, stop func())
}

// RenewItem is one lease to renew in a batch.
type RenewItem struct {
	Lease Lease
	TTL   time.Duration
}

// BatchRenewer is implemented by executors that renew many leases in one
// round trip (one Redis pipeline per watchdog tick).
type BatchRenewer interface {
	// RenewBatch renews every item and returns one error per item, in order
	// (nil for success). The leases were all returned by this executor.
	RenewBatch(ctx context.Context, items []RenewItem) []error
}

// ForceReleaser is implemented by executors that can break a lock held by
// another process: an operator's tool, not part of locking. The holder is
// not asked; it learns of the loss as it would of an expiry (a renewal that
// finds the lock gone, a watch on its own node), or not at all on some
// backends (see each executor's ForceRelease).
type ForceReleaser interface {
	// ForceRelease deletes key's lock only if it is still held by h, as
	// returned by [Inspector.Inspect] (or one of its [Holder.Holders]): a
	// holder that released meanwhile, and any newer holder, are left alone
	// and the call returns an error wrapping [ErrLockNotHeld]. Waiters are woken as by a release.
	ForceRelease(ctx context.Context, key string, h Holder) error
}
