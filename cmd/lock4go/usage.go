package main

// mainUsage is printed by "lock4go help" and after a usage error.
const mainUsage = `lock4go: inspect, watch, break and measure lock4go locks on Redis, Redlock, etcd, ZooKeeper and PostgreSQL.

Usage:
  lock4go inspect [flags] KEY...          who holds each key: kind, every holder's owner, fencing token and lease left, waiters
  lock4go watch [flags] KEY               print a line whenever the key's holders or waiters change, until Ctrl-C
  lock4go release --force [--yes] KEY     break a lock after showing its holder and asking for confirmation
  lock4go bench [flags]                   uncontended and hand-off latency through a lock4go Template

Backends (one per command; inspect takes several and prints a section each), host:port or a URL:
  --redis ADDR         host:port, or redis://[user:password@]host:port[/db], rediss:// for TLS (env LOCK4GO_REDIS)
  --redlock ADDRS      host:port,... or Redis URLs, one per independent master (3 or more)       (env LOCK4GO_REDLOCK)
  --etcd ENDPOINTS     host:port,... or http(s)://host:port,...                                   (env LOCK4GO_ETCD)
  --zookeeper HOSTS    host:port,... or zk://host:port,...                                        (env LOCK4GO_ZOOKEEPER)
  --postgres ADDR      [user@]host:port[/db], or postgres://[user[:password]@]host:port/db         (env LOCK4GO_POSTGRES)
                       (without a user: PGUSER, else the OS user, as for psql)
KEY is the lock key exactly as the Template got it (middleware keys look like lock4go:pay#42);
--etcd-prefix, --zk-base-path, --postgres-table and --postgres-schema must match the executors' options.
Run "lock4go COMMAND -h" for every flag.
` + exitCodesUsage

// exitCodesUsage ends every usage text; doc.go lists the same codes.
const exitCodesUsage = `
Exit codes:
  0  done (inspect: every key is held)
  1  any other failure
  2  usage error
  3  a key is not held (inspect, release), or its holder changed before release could break it
  4  a backend is unreachable within --timeout, or failed
  5  release was not confirmed: nothing was broken
`

const inspectUsage = `Usage: lock4go inspect [flags] KEY...

Prints, for every key on every backend given, how it is held (KIND: lock,
read, or permits n), the number of holders, and a row per holder with its
owner value, fencing token and lease left; then the waiters queued on the
backend (BACKEND WAITERS): one per process waiting for a lock (a process's
goroutines wait in its local queue, behind one: its /debug/locks shows
them), one per call waiting for a read lock or permit.
  Redis      waiters = executors in the key's wait queue; read locks and permits keep no token ("-")
  Redlock    the owner held by a majority of masters, its token, the shortest lease left, the most waiters on one master
  etcd       waiters = entries queued behind the holders; the lease is counted in whole seconds
  ZooKeeper  waiters = nodes queued behind the holders; the lease is the holder's session ("session");
             a semaphore's n is not stored ("permits")
  PostgreSQL waiters = processes queued for the key; the lease left is by the database's clock
`

const watchUsage = `Usage: lock4go watch [flags] KEY

Polls KEY every --interval and prints a line whenever its holders (owner,
token) or its number of waiters changes, and the first state at once. Stops
on Ctrl-C (SIGINT) or SIGTERM with exit code 0.
`

const releaseUsage = `Usage: lock4go release --force [--yes] KEY

Breaks KEY's lock: shows who holds it (of read locks or permits, the first
holder is tried; not every backend can break them), asks for confirmation on stdin (y/yes;
--yes skips the question), then deletes that holder's lock only if it still
holds it (compare-and-delete by owner, etcd entry or ZooKeeper node), so a
holder that took over meanwhile is left alone. Waiters are woken. The broken
holder is logged to stderr. The holder itself is not asked: it may still be
writing under the lock, which is what fencing tokens are for.
  Redis      a lock4go holder notices at its next renewal (within a third of its lease)
  etcd       a lock4go watchdog holder notices at its session's next keep-alive (within a third of its lease)
  ZooKeeper  a lock4go holder notices at once (its node's watch fires)
  PostgreSQL a lock4go holder notices at its next renewal (within a third of its lease)
  Redlock    a lock4go holder notices at its next renewal, which finds fewer than a majority holding it
Except on ZooKeeper, a holder with a fixed lease (WithExpire) is not told, nor anywhere a holder of
another library: it runs on until it releases.
`

const benchUsage = `Usage: lock4go bench [flags]

Measures, against the given backend and through one lock4go Template with
its default configuration (30s lease renewed by the watchdog), on a key of
its own (lock4go-bench:<random>, released at the end, which leaves nothing
behind):
  uncontended acquire + release: one goroutine locks and unlocks --pairs times; p50, p99, pairs/s
  hand-off latency: for each --waiters W, W goroutines wait while one holds the key for --hold;
    the time from the holder's Unlock to the next holder's Lock returning; p50, p99
These are the figures of docs/bench.md (the "lock4go/<backend>" rows).
`
