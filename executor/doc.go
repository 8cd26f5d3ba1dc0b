// Package executor defines the contract between the lock4go Template and a
// lock backend.
//
// An [Executor] makes one attempt to take a key and returns a [Lease].
// Everything else (the retry loop, re-entry, the local queue of one
// process's callers, the watchdog that renews leases, turning a lost lease
// into a cancelled context) lives in the Template, so an executor holds
// only what its backend makes different. Its [Capabilities] say what its
// locks are like (in-process, renewed by the backend itself, read locks
// and permits, the shortest lease) and where its callers wait, its
// [WaitModel]: inside Acquire, in the backend's queue ([WaitInAcquire]:
// memory, etcd, ZooKeeper); in the Template, queued on the backend by the
// failed attempt and woken by [Waiter.WatchRelease] ([WaitQueued]: Redis,
// PostgreSQL); or in the Template between attempts ([WaitPolling]:
// Redlock). What an executor can do beyond [Executor] is asked the Go way,
// by optional interfaces with the methods that do it: [Waiter],
// [BatchRenewer], [Inspector], [ForceReleaser], [DeferredReleaser], and on
// a lease [LostCauser] and [LocalEnder]. Every lease tells the Template of
// a loss the executor learns by itself through [Lease.AfterLost]
// ([NeverLost] when it never does: the Template then relies on renewals
// and its local clock).
//
// # Close
//
// An executor that holds resources (connections, goroutines, sessions)
// has a method Close() error, and every Close behaves alike, so that a
// service shutting down knows what its holders and waiters see. Close is
// idempotent and returns within a bound its executor documents. From the
// moment it begins, Acquire, Inspect and ForceRelease return an error
// wrapping [ErrClosed] (neither [ErrBackend] nor [ErrNotAcquired]) without
// touching the backend, [Waiter.WatchRelease] returns a channel that is
// ready at once, and waiters inside Acquire and watchers registered
// before are woken to see it. Every lease still held is first reported
// lost (its [Lease.AfterLost] functions run, and [LostCause] wraps
// ErrClosed), then released on the backend, best effort and by owner, so
// that waiters elsewhere get the key at once; Renew and Release of such a
// lease return an error wrapping [ErrLockNotHeld]. Close never closes a
// client, connection or session handle the caller passed in.
//
// Executors return the sentinel errors of this package, wrapped with the
// key and their name; the root package exports the same values. Package
// executor/executortest holds the conformance suite every executor passes,
// Close included.
package executor
