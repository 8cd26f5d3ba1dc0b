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
// # Kinds
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
// # Leases
//
// Without [WithExpire] a lock's lease is Config.Expire and a watchdog (one
// goroutine per Template, batched per executor) renews it every third of it
// until release. A renewal that finds the lock gone, or that cannot succeed
// before the lease would end by the local monotonic clock, ends the lock as
// lost. With WithExpire(d) the lease is d and is not renewed.
//
// # Zero values
//
// Zero means the default everywhere: in [Config], in [LockOption]
// arguments and in the Spec fields of the middleware and grpclock
// packages, a zero duration, count or name is the documented default,
// never "none" or "once". Negative durations and counts are
// [ErrInvalidConfig], from [New], from Lock and the other calls, and
// from the middleware and interceptor constructors; so is a lease shorter
// than the executor grants (executor.Capabilities.MinTTL: 1ms, 1s on etcd),
// refused when the call is made, before any attempt. One attempt without
// waiting is called NoWait wherever it can be asked for.
//
//	knob                  Config field     LockOption              Spec field       zero means
//	lease                 Expire           WithExpire(d)           Expire           30s, renewed by the watchdog until release (d > 0: fixed, not renewed)
//	wait for a busy key   AcquireTimeout   WithAcquireTimeout(d)   AcquireTimeout   3s (LockOption and Spec: the Template's)
//	one attempt, no wait  -                NoWait()                NoWait: true     (TryLock is Lock with NoWait)
//	pause between tries   RetryInterval    WithRetryInterval(d)    RetryInterval    100ms (LockOption and Spec: the Template's)
//	late answer allowed   AttemptGrace     WithAttemptGrace(d)     -                2s (LockOption: the Template's)
//	release bound         ReleaseTimeout   -                       -                3s
//	executor              Primary          WithExecutor(name)      Executor         the executor with the lowest Priority (or Config.Primary)
//	semaphore             -                WithPermits(n)          Permits          no semaphore: a plain lock
//	key prefix            KeyPrefix        -                       -                "lock4go"
//	logger, observer      Logger, Observer -                       -                slog.Default(), none
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
