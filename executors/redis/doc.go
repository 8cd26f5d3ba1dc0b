// Package redis is the lock4go executor for Redis, over go-redis v9.
//
// [New] takes a client the caller built and owns: a single node, a Sentinel
// failover client or a Redis Cluster client (not a Ring). Redis 5.0 or
// later is needed (7.0 on Redis Cluster, whose wakes are sharded); lock4go
// is tested against Redis 7.0. Create the client
// with ContextTimeoutEnabled: the executor then calls Redis in the caller's
// goroutine (without it, a call whose context can end is handed to a worker
// goroutine, which costs a scheduler round trip).
//
// A lock is one string key holding its owner, with the lease as its TTL:
// Lock4j's layout (SET key owner NX PX, compare-and-delete), so a Java
// service on Lock4j's RedisTemplate executor and a Go service on lock4go
// exclude each other on the same key. The value also carries the fencing
// token, taken from the server clock above the key's last token. The
// Template's watchdog renews held locks, many per pipeline. Waiters queue on
// the server, one entry per executor in arrival order; a release grants the
// key directly to the longest waiter (its owner and token, for a claim
// window that the waiter's next attempt confirms) and wakes only it,
// through one pub/sub subscription per executor, or per slot with waiters
// on Redis Cluster, where the wake stays on the key's shard (see
// [Executor.WatchRelease]).
//
// Guarantees and caveats:
//
//   - An attempt whose reply was lost never returns a lease: the
//     executor voids the owner in the background, so a late command cannot
//     take the key, and reports an error.
//   - Run lock servers with maxmemory-policy noeviction; [New] warns when
//     an evicting policy is set.
//   - A failover to a replica that had not received the last writes can
//     grant a held lock again (with a higher token, from the new master's
//     clock). Use etcd or ZooKeeper when that must never happen.
//   - Keys you build yourself must not look like the names derived from a
//     key (queues, shares, void markers); build them with keybuilder.Join.
//
// [ACLRules] returns the ACL of a user that can lock one key prefix and no
// more; credentials, TLS and Sentinel are set on the go-redis client.
//
// The protocol, the derived key names, the lost-reply handling, the wait
// queue and operations are described in docs/redis.md of the repository:
// https://github.com/lock4go/lock4go/blob/main/docs/redis.md
package redis
