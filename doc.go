// Package lock4go is a distributed-lock framework in the spirit of Java's
// Lock4j, without annotations: a [Template] acquires and releases locks
// through pluggable executors (Redis, Redlock, ZooKeeper, etcd, PostgreSQL,
// in-process), and packages middleware and grpclock wrap net/http handlers
// and gRPC methods with the same locks.
//
// # Locks
//
// [Template.Lock] waits for a key up to the acquire timeout, retrying at a
// fixed interval or sooner when the executor reports a release, and returns
// a [*Lock]: its fencing token, a Done channel closed when it is released or
// lost, and Release. [Template.Do] runs a function under the lock and hands
// it a context that is cancelled with cause [ErrLockLost] if the lock is
// lost, and that re-enters the lock in nested calls. [Template.TryLock]
// makes one attempt, as Lock with [NoWait] does.
//
// # Kinds, leases, defaults, safety
//
// [Shared] takes a read lock (readers exclude only writers; a waiting
// writer keeps later readers out) and [WithPermits] one of n permits of a
// semaphore; every built-in executor has both but Redlock, whose locks are
// mutexes only (asked for either, it is [ErrInvalidConfig]).
// [Template.LockAll] takes several keys, all or none, in one canonical
// order; [Template.Lead] campaigns for leadership until its context ends;
// [Locked] wraps any func(ctx, Req) (Resp, error) in a lock keyed by the
// request.
//
// Without [WithExpire] a lock's lease is Config.Expire, renewed every third
// of it until release by one watchdog per Template; a renewal that finds
// the lock gone, or cannot succeed before the lease ends by the local
// clock, ends the lock as lost. With WithExpire(d) the lease is d, fixed.
//
// Zero means the default everywhere ([Config], [LockOption] arguments, the
// middleware's and grpclock's Spec fields); negative values, and a lease
// shorter than the executor grants, are [ErrInvalidConfig] before any
// attempt. docs/guide.md of the repository tabulates each knob:
// https://github.com/lock4go/lock4go/blob/main/docs/guide.md#one-knob-three-places
//
// A lease is a promise with a deadline, not a guarantee: a process paused
// longer than its lease (GC, swap, SIGSTOP) can still believe it holds a
// lock. Fencing tokens close that gap: pass [Lock.Token] to the protected
// resource and have it reject any token lower than the highest it has seen.
//
// Errors are sentinels matched with [errors.Is] ([ErrNotAcquired],
// [ErrBackend], [ErrLockLost] and the others of errors.go).
package lock4go
