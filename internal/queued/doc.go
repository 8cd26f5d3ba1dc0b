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
// executor stands in its queue) are a [Waits] the executor owns and
// hands to [Config]; [Core.Close] wakes them and leaves their queues.
//
// A new queued executor (PostgreSQL's is the model for a lease table):
// embed a [Base] in its lease type; keep a *Core in the Executor, made by
// [New] with its [Statements]; in Acquire, [Core.CheckKey], then
// [Core.BusyLocally] for a [Tracked] request, the statement on
// [Core.CallContext], and its answer to [Core.Answer] (or [Core.Abandon]
// when the caller gave up meanwhile, [Core.VoidLater] when the answer was
// lost); in RenewBatch, [Core.Renewals]; [Core.Settle] with the error of
// every renewal and release; [Core.Unwatch] as the stop of WatchRelease;
// [Core.Close] from the executor's Close. The executor keeps what its
// backend makes different: its statements, its wake-up channel, how it
// tells a statement that was never sent from a lost reply.
package queued
