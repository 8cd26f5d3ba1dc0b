// Package executor defines the contract between the lock4go Template and a
// lock backend.
//
// An [Executor] performs one acquisition attempt (or, for queue-based
// backends, one bounded queue wait) and returns a [Lease]. Everything else
// (the retry loop, re-entry, local queueing, the watchdog that renews leases,
// turning a lost lease into a cancelled context) lives in the Template, so an
// executor stays small: a few hundred lines over its client library.
//
// Optional capabilities are discovered with type assertions:
//
//   - [Waiter]: the executor can tell when a key is released, so waiters wake
//     at once instead of sleeping the full retry interval.
//   - [BatchRenewer]: the executor renews many leases in one round trip.
//   - [SelfRenewing]: a lease the backend keeps alive by itself (a ZooKeeper
//     session, an etcd keep-alive); the Template does not renew it and relies
//     on [Lease.Lost].
//   - [Inspector]: the executor can report who holds a key.
//   - [LostNotifier]: a lease calls back on loss, sparing a goroutine.
//   - [InProcess]: the executor never blocks, so calls need no deadline.
//
// Executors return the sentinel errors of this package, wrapped with
// context; the root package re-exports them. The package
// executor/executortest holds the conformance suite every executor passes.
package executor
