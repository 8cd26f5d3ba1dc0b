// Package redis is the lock4go executor for Redis, over go-redis v9. It takes
// a [github.com/redis/go-redis/v9.UniversalClient] built by the caller: a single node, a Sentinel
// failover client or a Redis Cluster client, but not a Ring (its pub/sub is
// per shard). It needs Redis 5.0 or later: the acquire script reads the
// server clock (TIME) before it writes, which Redis allows from 5.0 on,
// where scripts replicate their effects rather than themselves. It is tested
// against Redis 7.0.
//
// # Protocol
//
// A lock is one string key holding its owner value, exactly as the caller
// names it, with the lease as its TTL. Every operation is one Lua script
// (EVALSHA, falling back to EVAL) over keys of one Cluster slot:
//
//   - acquire: unless the owner's void marker exists, SET key owner NX PX
//     ttl and, on success, INCR of the key's fencing counter, whose result is
//     the token; one round trip. A key holding anything else, even a value
//     of another type, is held by someone else.
//   - release: compare-and-delete (only if the key still holds the owner),
//     then PUBLISH on the key's release channel; one round trip.
//   - renew: compare-and-PEXPIRE. [Executor.RenewBatch] renews many leases
//     in one pipeline per Cluster node.
//
// An acquisition whose reply is lost (timeout, cut connection, context ended
// mid-flight) may have taken the key, or may still take it: go-redis retries
// a script whose reply was lost, and a command can reach the server after
// the client gave up on it. The executor then compensates in the background
// and reports an error, never a lease: a script sets the owner's void
// marker, which makes the acquire script refuse that owner whenever its
// command lands, and deletes the key if it holds the owner (announcing the
// release). The marker lives as long as the lease would, and at least 30s;
// the compensation is retried with backoff until it succeeds, the executor
// is closed, or that lease has surely expired; pending compensations share
// one goroutine and one pipeline per round, and while every compensation
// fails (Redis down, credentials refused) a round retries only one of them,
// as a probe, besides the new ones. A go-redis retry of an
// acquisition whose first attempt took the key, but whose reply was lost,
// finds its own owner there and returns the token. A retried release whose
// first attempt deleted the key reports ErrLockNotHeld: the lock is released
// either way.
//
// # Names derived from a key
//
// The fencing counter is "{<key>}:token", the release channel
// "{<key>}:released" and an owner's void marker "{<key>}:void:<owner>": the
// key as a hash tag, so all hash to the key's own slot. A key that already
// has a hash tag keeps it: "<key>##token", "<key>:released" and
// "<key>##void:<owner>". The "##" and the letter after it make a shape that
// lock4go's key builders never build, whatever the KeyPrefix (they escape
// '#', ':' and braces in names and parts, and write "##" only before the 64
// hex digits of a hashed key), and [Executor.Acquire] refuses keys of that
// shape ([executor.ErrInvalidKey]). The names of keys without a tag start
// with "{" and the whole key, which no key built with the same prefix does.
// So no built key is the counter or marker of another key built with the
// same KeyPrefix. A key whose slot cannot be written as a tag (it
// contains "}" but has no tag) gets a short tag of its slot
// ("{<tag>}:token:<key>", "{<tag>}:void:<key>:<owner>"). Keys you build
// yourself must not look like any of these names: use keybuilder.Join.
//
// Versions before the "##" names counted keys with a hash tag in
// "<key>:token". The acquire script still reads that name and, while it
// holds a counter, keeps the token above it and raises it to the token, so
// tokens keep increasing through a rolling upgrade in which old and new
// processes take the same keys. It expires [Options.CounterTTL] after the
// last acquisition by an old process; until then, a key of that name (a route
// whose last part is "token") is taken by the old counter.
//
// The counter expires [Options.CounterTTL] (7 days) after the key's last
// acquisition; a new counter is seeded from the server clock in
// microseconds, so tokens keep increasing across counter expiry and restarts
// of a server without persistence, as long as its clock does not go back. As
// with the locks themselves, tokens are only as durable as Redis: a failover
// to a replica that missed the last writes can hand out a lock, or a token,
// twice.
//
// # Waking waiters
//
// [Executor.WatchRelease] subscribes to a key's release channel on one
// pub/sub connection shared by all watches of the executor, opened at the
// first watch; subscriptions are counted per channel and dropped when the
// last watcher stops. go-redis reconnects that connection and re-subscribes
// after errors; waiters are then woken, in case they missed a release. On a
// Cluster client the channel is a classic one: PUBLISH is broadcast over the
// cluster bus, so a subscription on any node hears it. That costs one bus
// message per node and release; sharded pub/sub (SPUBLISH) would avoid it but
// needs one connection per slot owner. Expiries, and releases made by other
// programs, are not announced: waiters notice them by polling at the
// Template's retry interval.
//
// # Interoperation with Lock4j
//
// With KeyPrefix "lock4j", lock4go's key builders and middleware build
// Lock4j's keys, "lock4j:<name>#<keys>". Lock4j's RedisTemplateLockExecutor
// stores the owner as a plain string with SET key value NX PX (through the
// string serializer) and releases with a compare-and-delete script: the same
// layout as this executor, so a Java service using Lock4j and a Go service
// using lock4go exclude each other on the same key. Lock4j's releases are not
// announced on the release channel, so Go waiters poll for them. Lock4j's
// Redisson executor is different: it stores a reentrant lock as a hash, so it
// does not interoperate with this executor (nor with Lock4j's own
// RedisTemplate executor).
//
// # Least privilege, TLS, Sentinel
//
// [ACLRules] returns the ACL rules of a Redis user that can lock the keys of
// one prefix and nothing else: the keys, their derived names and channels,
// and the commands this package sends. Credentials, TLS and Sentinel are
// the client's: configure them on the go-redis client (Username, Password,
// TLSConfig; NewFailoverClient for Sentinel). A refused command (NOPERM,
// WRONGPASS, an untrusted certificate) is an [executor.ErrBackend] naming
// the cause; a lock whose renewals are refused is lost by the end of its
// lease. After a Sentinel failover the client's commands follow the new
// master at once; the pub/sub connection follows when the old master drops
// it (at once when it died; after SENTINEL FAILOVER, when Sentinel
// reconfigures it, about ten seconds later), and waiters poll meanwhile.
//
// # Operations
//
// Run lock servers with maxmemory-policy noeviction: an evicting policy can
// drop held locks. [New] checks the policy when CONFIG GET is allowed and
// logs a warning. Create the client with ContextTimeoutEnabled so go-redis
// bounds each call by the caller's deadline and the executor calls Redis in
// the caller's goroutine; otherwise the executor bounds each call whose
// context can end by handing it to a worker goroutine, which costs a
// scheduler round trip per call (see [New]). go-redis never notices a
// cancellation, only deadlines, so a call whose context can be cancelled but
// has no deadline takes a worker either way.
package redis
