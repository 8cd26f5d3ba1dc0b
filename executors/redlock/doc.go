// Package redlock is the lock4go executor for Redlock: one lock over N
// independent Redis masters (not replicas of each other, not one Cluster),
// held while a majority of them holds it, so that it outlives the loss of a
// minority of masters.
//
// [New] takes the masters' go-redis clients (at least three; use 3 or 5: a
// majority is N/2+1, and an even N survives no more failures than N-1) and
// builds a Redis executor (package executors/redis) on each: every master
// holds the lock in the Redis executor's layout, which is also redsync's,
// so that lock4go's Redlock and a redsync Mutex over the same masters
// exclude each other.
//
// An attempt sends the acquire script to every master at once and returns
// as soon as a majority granted the key, provided the grants are still
// valid: TTL - elapsed - drift, with drift TTL*[Options.DriftFactor] +
// [Options.MinDrift] (1% and 2ms by default); the lease's Start is the send
// time less the drift. Late grants join the lease or are released; an
// attempt that cannot reach a majority releases what it got and returns
// executor.ErrNotAcquired or executor.ErrBackend; masters silent past
// [Options.NodeTimeout] after another owner was met are suspect until they
// answer again. Renewals (one pipeline per master per watchdog tick) and
// releases go to every master holding the lease and count on a majority;
// a lease that lost its majority is never revived. A waiting attempt
// queues the process on each master where the key is busy, and a release
// on any master wakes it ([Executor.WatchRelease]).
//
// The token of a lease is the largest of its majority's per-master tokens,
// and the masters behind are raised to it before Acquire returns
// ([redis.Executor.RaiseToken]): any later majority shares a master with
// this one, so tokens strictly increase from one holder to the next, also
// when a lock was lost to a second holder while the first still believed
// it held it.
//
// Redlock's safety rests on timing: a holder paused past its validity, a
// master whose clock jumps forward, or one that restarts without the keys
// it granted can let a second owner take the lock while the first still
// runs; fencing tokens make the resource safe against the late writes. Run
// the masters with appendonly yes and appendfsync always, or keep a
// restarted master out of the set for one TTL; prefer the etcd or
// ZooKeeper executors when two holders must never coexist even without
// fencing. The protocol, its faults and costs are in docs/redlock.md of the
// repository: https://github.com/lock4go/lock4go/blob/main/docs/redlock.md
package redlock
