// Package etcd is the lock4go executor for etcd, over the etcd client v3
// (go.etcd.io/etcd/client/v3). [New] takes a client the caller dialled and
// closes; the executor never dials.
//
// # Layout
//
// A lock on key k uses the layout of etcd's own concurrency.Mutex: every
// contender writes an entry "<Prefix>k/<lease id in hex>" under a lease; the
// entry with the lowest create revision holds the lock, the others queue in
// create-revision order. With the zero [Options.Prefix], `etcdctl lock k`,
// concurrency.NewMutex(session, "k") and this executor exclude each other.
// Entry values hold the lock4go owner (etcdctl stores none).
//
// Keys may contain "/": entries of a longer key ("k/sub/<lease>") are not
// members of k's queue, so a lock on "k" is never blocked by a lock on
// "k/sub". (concurrency.Mutex and etcdctl do not make that distinction: to
// them a lock on "k/sub" also blocks "k".) An entry deleted by hand
// (etcdctl del) is noticed at release, not before.
//
// # Waiting
//
// A waiting Acquire watches only the entry created just before its own, for
// its delete, so a release wakes one waiter, not all of them. The watch is
// opened without a start revision and checked against the read it follows:
// a watch that starts at or below etcd's current revision is "unsynced" and
// hears of events only at etcd's next 100 ms catch-up, which gives
// concurrency.Mutex its hand-off tails of up to 100 ms. In a short queue a
// new watch is also backed by a few reads during its first 100 ms, for the
// rarer case where a write races its registration inside etcd. Once first,
// the waiter checks in the same read that its own entry still exists, so a
// lease that ended while waiting is never mistaken for the lock (the Jepsen
// etcd 3.4.3 finding). When the context ends, the own entry is deleted with
// a detached context (retried in the background if etcd cannot be reached),
// never left to block others until its lease ends.
//
// # Leases
//
// Watchdog locks (Request.Renewed) share one lease per TTL (rounded up to
// whole seconds), kept alive by one goroutine: 100k held locks cost one
// keep-alive. Their [executor.Lease.Lost] is the session's channel, closed
// when etcd reports the lease gone (at the next keep-alive, within a third
// of the TTL, or at once when an acquisition finds it gone) or when no
// keep-alive has been answered by the end of the lease by the local clock:
// the send time of the last answered keep-alive plus the TTL, less 2%.
// concurrency.Session instead closes its Done channel once the receipt of
// the last reply plus the TTL has passed, checked once a second: up to a
// round trip plus a second after etcd may have handed the lock on. (Behind a
// blackholed connection with a 3s TTL, one run saw its Done close 0.6 s
// after etcd freed the key; this executor's Lost closes before, by 0.4-0.5 s
// in every run of TestLease_Lost_beforeEtcdFreesKey.) Two
// acquisitions of one key under one shared lease would share its entry, so
// this process lets only one of them use it at a time; once a session is
// lost none of them can use its entries again, and they are forgotten
// whether or not their locks are released. A session is granted in the
// background, bounded by 5 s and ended by Close, never under one caller's
// context; every acquisition waiting for it stops at its own context's end.
//
// # Lost replies
//
// When the reply to an entry write is lost, Acquire deletes the entry it
// may have written and reports an error, never a Lease. Under a lock's own
// lease the delete is a revoke, so a write still in flight fails too. Under
// a shared session the write could still land after the delete and leave
// an entry the session keeps alive, so the session also records the write
// and re-checks it (at 1 s, then at intervals doubling up to 10 s) until it
// is seen applied or the session ends, deleting the entry if it still holds
// that acquisition's owner and no acquisition of this process uses it. A
// late entry thus blocks its key for at most about 10 s; each such record
// costs one transaction per interval while it lasts.
//
// Fixed-expire locks get a lease of their own, with no keep-alive while
// held: it ends with its TTL. While the entry waits in the queue the lease
// is renewed, so it never ends before the acquisition began plus its TTL,
// when the Template ends the lock by its local clock. Their Lost is nil.
//
// Each fixed-expire lock writes an entry of a new name (its lease's), and
// etcd keeps every deleted key name in its index until compaction, so reads
// of a busy key's queue slow down over time unless etcd compacts (run it with
// --auto-compaction-retention, as any etcd with churning keys should be).
// Watchdog locks reuse their session's entry name.
//
// etcd raises a TTL below its minimum (2s with the default 1s election
// timeout) and deletes expired keys up to ~0.5 s late; both only make the
// lock last longer, never shorter, than the local clock says.
//
// # Fencing and fenced writes
//
// The fencing token is the entry's create revision: etcd's revision grows
// with every write, so tokens grow strictly per key, across owners, clients
// and restarts. When the protected resource is etcd itself, a write can be
// made conditional on still holding the lock, in one transaction, with the
// comparison returned by [IsOwner] (from a Lease) or [Executor.OwnerCmp]
// (from a lock's key and token):
//
//	cmp, err := etcdExec.OwnerCmp(ctx, lock.Key(), lock.Token())
//	if err != nil {
//		return err // ErrLockNotHeld: the lock is already gone
//	}
//	resp, err := cli.Txn(ctx).If(cmp).Then(clientv3.OpPut("balance", "42")).Commit()
//	if err == nil && !resp.Succeeded {
//		// the lock was lost before the write: nothing was written
//	}
//
// The write happens only if the lock's entry is still the one created at
// the token's revision, which no expiry, pause or network delay can fake.
//
// # Authentication and TLS
//
// The executor needs a user whose role has readwrite on the range
// [Options.Prefix] + the lock keys (with a prefix, `etcdctl role
// grant-permission --prefix=true <role> readwrite <Prefix>`). Its watches
// need read on that range; lease grants, keep-alives and TimeToLive need no
// key permission in etcd 3.4, and a lease revoke needs write on the keys
// attached to it. A write etcd refuses fails with [executor.ErrBackend]
// wrapping etcd's error and leaves nothing behind. Revoking the role's
// permission does not end held locks, whose keep-alives need none; deleting
// the user or changing its password does, at the next keep-alive. TLS is
// the client's business (clientv3.Config.TLS); when the client cannot
// connect at all, backend errors say so (see [Executor.Acquire]).
package etcd
