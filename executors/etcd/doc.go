// Package etcd is the lock4go executor for etcd, over the etcd client v3.
//
// [New] takes a *clientv3.Client the caller dialled and owns; the executor
// never dials. A lock on key k uses the layout of etcd's own
// concurrency.Mutex (an entry "<Prefix>k/<lease id>" per contender, the
// lowest create revision holds the lock), so with the zero
// [Options.Prefix], `etcdctl lock k`, concurrency.NewMutex and this
// executor exclude each other.
//
// Waiters queue in etcd in arrival order and each release wakes one waiter
// (a watch on its predecessor, backed by reads). Watchdog locks share one
// keep-alive session per TTL; a lock is reported lost when etcd says its
// lease is gone or when no keep-alive was answered by the lease's end by
// the local clock, which is never after etcd could free the key. Locks
// with a fixed expiry get a lease of their own that lasts its full TTL
// from the grant, however long they waited.
//
// Guarantees and caveats:
//
//   - The fencing token is the entry's create revision: it grows strictly
//     per key across owners, clients and restarts. [IsOwner] and
//     [Executor.OwnerCmp] give the comparison that makes an etcd write
//     conditional on still holding the lock.
//   - An entry write whose reply was lost never returns a lease: the
//     executor voids it, and re-checks a late write under a shared session.
//   - Run etcd with --auto-compaction-retention: reads of a busy key's
//     queue slow down as deleted entry names pile up until compaction.
//     Watchdog locks, read locks and permits reuse their entries' names
//     (a slot per read lock or permit held at once); each fixed-expire
//     lock writes an entry of a new name, its lease's (docs/etcd.md).
//   - The executor's user needs readwrite on the lock range only. Revoking
//     that permission does not end held locks; deleting the user does.
//
// The layout, waiting, leases, lost replies, fenced writes and permissions
// are described in docs/etcd.md of the repository:
// https://github.com/lock4go/lock4go/blob/main/docs/etcd.md
package etcd
