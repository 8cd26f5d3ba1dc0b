// Package redlock is the lock4go executor for Redlock: one lock over N
// independent Redis masters (not replicas of each other, not one Cluster),
// held while a majority of them holds it, so that it outlives the loss of a
// minority of masters.
//
// [New] takes the masters' go-redis clients (at least three) and builds a
// Redis executor (package executors/redis) on each: every master holds the
// lock in the Redis executor's layout (SET key NX PX with the owner and the
// fencing token as its value, its wait queue, the void markers of lost
// replies), which is also redsync's layout, so that lock4go's Redlock and a redsync Mutex over the
// same masters exclude each other.
//
// # Acquisition
//
// An attempt sends the Redis executor's acquire script to every master at
// once and returns as soon as a majority granted the key (it does not wait
// for the slowest master, as redsync does), provided the grants are still
// valid: the validity of a lease is TTL - elapsed - drift, where elapsed is
// the time from sending to the majority's last grant by the local monotonic
// clock and drift is TTL*[Options.DriftFactor] + [Options.MinDrift] (1% and
// 2ms by default). The lease's Start is the send time less the drift, so the
// Template ends the lock within that validity. Masters still to answer are
// finished in the background: a late grant joins the lease, or is released
// if the lease is gone. An attempt that cannot reach a majority releases
// every grant it got and returns executor.ErrNotAcquired (the key is held
// elsewhere) or executor.ErrBackend (too many masters did not answer); a
// master whose reply was lost voids the owner itself, so a command that
// lands late cannot take the key there. An attempt that met another owner
// (a master said busy) gives up on masters still silent after
// [Options.NodeTimeout] (100ms), which are then suspect until they answer
// again, and does not wait for suspect masters at all: a dead master does
// not hold partial grants up while other waiters collide with them. An
// attempt that met nobody waits for slow masters as long as its context
// allows.
//
// Renewals go to every master holding the lease (one pipeline per master
// per watchdog tick, see [Executor.RenewBatch]) and succeed on a majority;
// the lock is lost when fewer than a majority still hold it (the lease then
// releases the masters that may still hold it, since the Template does not
// release a lost lock), or when the lease's end passes on the local clock
// without a successful renewal. After each renewal that succeeded, the
// masters that lack the lease (busy at the acquisition, restarted, or found
// gone) are asked for it, one goroutine per master for all leases, so a
// lease taken on a bare majority soon holds everywhere and survives the
// loss of a minority; only renewals count for the majority, so a lease that
// lost it is never revived.
// Releases go to every master, by owner. Renewals and releases return once
// their outcome is decided and the other masters had a grace as long as the
// decided part took (at most 5ms).
//
// With N masters a majority is N/2+1: 2 of 3, 3 of 5, 3 of 4. An even N is
// allowed but survives no more failures than N-1 masters do (4 survive one
// loss, like 3) and makes split attempts more likely; use 3 or 5.
//
// # Waiting
//
// A waiting attempt that finds the key busy on a master queues this process
// in that master's wait queue (the Redis executor's FIFO queue); a release
// on any master hands the key to its head and wakes it, and the woken
// process tries the whole majority again ([Executor.WatchRelease]). Queues
// of different masters can order waiters differently, so two waiters may
// each get a minority; both then release (handing each other their
// grants) and the next waiting attempt of each pauses for a random time
// below 10ms (Redlock's random retry delay), so that one goes first.
//
// # Fencing
//
// The token of a lease is the largest of its majority's per-master tokens
// (each the master's clock in microseconds, above the key's last token
// there), and before Acquire returns, the majority's masters whose tokens
// were behind are raised to it ([redis.Executor.RaiseToken]; one more round
// trip, in parallel, whenever the tokens differ, which with tokens from
// clocks is nearly always). Any later majority shares a master with this
// one, where the key carries the raised token while held, and a floor above
// it after the release while it is ahead of that master's clock: so tokens
// strictly increase from one holder to the next, also when a lock was lost
// to a second holder while the first still believed it held it (a resource
// that checks tokens then refuses the first holder's writes once the second
// one has written). A lease that expired on the shared master instead of
// being released left no floor there: the next token then comes from that
// master's clock, which has passed the first token unless the masters'
// clocks differ by more than the lease, or that clock went back. Tokens are
// per key and never reused otherwise.
//
// # Limits
//
// Redlock's safety rests on timing: a holder paused past its validity, a
// master whose clock jumps forward (expiring keys early) or a master that
// restarts without the keys it granted (no persistence, or persistence
// without fsync on every write) can let a second owner take the lock while
// the first still runs. The Template's lost signal tells the first holder
// when its renewals fail or its local validity runs out, never sooner than
// the fault; fencing tokens make the resource safe against the late writes.
// Run the masters with appendonly yes and appendfsync always, or keep a
// restarted master out of the set for one TTL; prefer the etcd or ZooKeeper
// executors, whose leases live in a consensus log, when two holders must
// never coexist even without fencing.
package redlock
