// Package queued is the core of the queued executors: those whose waiters
// queue on the backend (the [executor.WaitQueued] model) and whose leases
// the backend never ends by itself (Redis, PostgreSQL, and MySQL next). Such
// an executor fills in its round trips, [Statements], and a [Core] does the
// bookkeeping they all share:
//
//   - the void queue: the clean-up of an attempt whose reply was lost,
//     retried in the background with backoff, batched, probed during an
//     outage, warned about once per outage, given up once the lease it
//     guards against has surely ended ([Core.VoidLater]);
//   - the held leases, which Close reports lost and releases, and the
//     refusal of a lease granted after Close began ([Core.Add]);
//   - Close, bounded by one clean-up deadline for every round trip it and
//     the background work make ([Core.Close], [Core.Cleanup]);
//   - the departure from a key's queue once its last watcher stops
//     ([Core.Unwatch]);
//   - the errors every queued executor returns alike, prefixed with its
//     package's name ([Core.Busy], [Core.ClosedErr], [Core.AcquireErr]...).
//
// The waits of an executor's callers (who watches which key, whether the
// executor stands in its queue) are a [kit.Waits] the executor owns and
// hands to [Config]; [Core.Close] wakes them and leaves their queues.
//
// A new queued executor: keep a *Core in the Executor, made by [New] with
// the executor's [Statements]; give its lease type the methods Key and Loss
// ([Lease]); call [Core.Add] with every lease an attempt takes,
// [Core.VoidLater] whenever an attempt may have written without its answer
// reaching the executor, [Core.Settle] with the error of every renewal and
// release, and [Core.Close] from the executor's Close. The executor keeps
// what its backend makes different: its statements, its wake-up channel,
// how it tells a write that was never sent from a lost reply.
package queued
