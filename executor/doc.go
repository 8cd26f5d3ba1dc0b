// Package executor defines the contract between the lock4go Template and a
// lock backend.
//
// An [Executor] makes one acquisition attempt (or, for a backend that
// queues waiters, one wait in its queue bounded by [Request.WaitUntil]) and
// returns a [Lease]. Everything else (the retry loop, re-entry, the local
// queue of one process's callers, the watchdog that renews leases, turning
// a lost lease into a cancelled context) lives in the Template, so an
// executor holds only what its backend makes different.
//
// What an executor's locks are like is said by its [Capabilities]:
//
//   - InProcess: calls never block on I/O (the memory executor), so the
//     Template bounds them with no deadline or timer.
//   - SelfRenewing: the backend keeps a watchdog lock's lease alive by
//     itself (a ZooKeeper session, an etcd keep-alive); the Template never
//     calls [Lease.Renew] on it, learns of its loss by [Lease.AfterLost] and
//     ends it at its [LocalEnder.LocalEnd].
//   - Wait: where a waiter waits, the executor's [WaitModel] (the table
//     below).
//   - SharedLocks and Semaphores: the executor takes read locks
//     ([Request.Shared]) and permits ([Request.Permits]).
//
// What an executor can do beyond [Executor] is asked the Go way, by the
// optional interfaces with the methods that do it:
//
//   - [Waiter]: the executor can tell when a key is released, so a waiter
//     wakes at once instead of sleeping the full retry interval.
//   - [BatchRenewer]: many leases renewed in one round trip (one pipeline
//     per watchdog tick).
//   - [Inspector]: who holds a key.
//   - [ForceReleaser]: break a lock held by another process (an operator's
//     tool).
//   - [LostCauser], on a lease: why it was lost, which the Template wraps
//     into the lock's error.
//   - [LocalEnder], on a lease: when the lease ends by the local clock at
//     the latest, for leases the backend renews by itself.
//
// Every lease tells the Template of a loss the executor learns by itself
// through [Lease.AfterLost] ([NeverLost] when it never does: the Template
// then relies on renewals and its local clock), and of its Close.
//
// A waiter waits in one of three ways, its executor's [WaitModel]
// ([Capabilities.Wait]), which the Template reads once per executor and
// waits by:
//
//	model          executors           waits                          woken by
//	WaitInAcquire  memory, etcd,       inside Acquire, in the         its turn in the queue
//	               zookeeper           backend's queue, until
//	                                   Request.WaitUntil
//	WaitQueued     redis, postgres     in the Template, queued on     WatchRelease (a release
//	                                   the backend by the failed      handed to this executor)
//	                                   attempt
//	WaitPolling    redlock             in the Template, between       WatchRelease, or the
//	                                   attempts                       retry interval
//
// A WaitQueued executor must be a [Waiter]; the zero WaitModel is
// WaitPolling, and a polling executor that is not a Waiter is tried again
// at the retry interval.
//
// # Close
//
// An executor that holds resources (connections, goroutines, sessions)
// has a method Close() error, and every Close behaves alike, so that a
// service shutting down knows what its holders and waiters see:
//
//   - Close is idempotent and bounded: it returns within a bound its
//     executor documents (a clean-up timeout for the backend round trips
//     it makes, plus whatever calls already in flight need), and later
//     calls return at once.
//   - From the moment Close begins, Acquire, Inspect and ForceRelease
//     return an error wrapping [ErrClosed] (and neither [ErrBackend] nor
//     [ErrNotAcquired]) without touching the backend, and
//     [Waiter.WatchRelease] returns a channel that is ready at once.
//     Waiters inside Acquire return [ErrClosed] at once, and watchers
//     registered before are woken, so that their next attempt sees it.
//   - Every lease still held is first reported lost (its [Lease.AfterLost]
//     functions run, and [LostCause] wraps [ErrClosed]), then released on
//     the backend, best effort and by owner (compare and delete, or a
//     revoke of the executor's own sessions), so that waiters elsewhere
//     get the key at once instead of when its TTL ends. A release that
//     fails within the bound leaves the key to its TTL or session.
//     Renew and Release of such a lease return an error wrapping
//     [ErrLockNotHeld] (and its cause).
//   - Close never closes a client, connection or session handle the
//     caller passed to the executor's constructor: the caller owns it and
//     closes it after Close.
//
// The conformance suite's case "Close" checks all of it against every
// executor.
//
// Executors return the sentinel errors of this package, wrapped with the
// key and their name; the root package re-exports them. The package
// executor/executortest holds the conformance suite every executor passes.
package executor
