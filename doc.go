// Package lock4go is a distributed-lock framework in the spirit of Java's
// Lock4j, without annotations: a [Template] acquires and releases locks
// through pluggable executors (Redis, ZooKeeper, etcd, in-process), and
// middleware wraps net/http handlers and gRPC methods with the same locks.
//
// # Locks
//
// [Template.Lock] waits for a key up to the acquire timeout, retrying at a
// fixed interval or sooner when the executor reports a release, and returns
// a [*Lock]: its fencing token, a Done channel closed when it is released or
// lost, and Release. [Template.Do] runs a function under the lock and hands
// it a context that is cancelled with cause [ErrLockLost] if the lock is
// lost, and that re-enters the lock in nested calls. [Template.TryLock]
// makes one attempt.
//
// # Kinds
//
// [Shared] takes a read lock (readers exclude only writers; a waiting
// writer keeps later readers out) and [WithPermits] one of n permits of a
// semaphore; every built-in executor has both. [Template.LockAll] takes
// several keys, all or none, in one canonical order; [Template.Lead]
// campaigns for leadership until its context ends; [Locked] wraps any
// func(ctx, Req) (Resp, error) in a lock keyed by the request.
//
// # Leases
//
// Without [WithExpire] a lock's lease is Config.Expire and a watchdog (one
// goroutine per Template, batched per executor) renews it every third of it
// until release. A renewal that finds the lock gone, or that cannot succeed
// before the lease would end by the local monotonic clock, ends the lock as
// lost. With WithExpire(d) the lease is d and is not renewed.
//
// # Safety
//
// A lease is a promise with a deadline, not a guarantee: a process paused
// longer than its lease (GC, swap, SIGSTOP) can still believe it holds a
// lock. Fencing tokens close that gap: pass [Lock.Token] to the protected
// resource and have it reject any token lower than the highest it has seen.
//
// Errors are sentinels matched with [errors.Is]: [ErrNotAcquired],
// [ErrLockNotHeld], [ErrLockLost], [ErrUnknownExecutor], [ErrInvalidKey],
// [ErrBackend] and [ErrInvalidConfig].
package lock4go
