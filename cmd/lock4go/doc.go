// Command lock4go inspects, watches, breaks and measures lock4go locks on
// the backends themselves: Redis, Redlock, etcd, ZooKeeper, PostgreSQL and
// MySQL.
//
// Usage:
//
//	lock4go inspect [flags] KEY...          who holds each key: kind, every holder's owner, fencing token and lease left, waiters
//	lock4go watch [flags] KEY               print a line whenever the key's holders or waiters change, until Ctrl-C
//	lock4go release --force [--yes] KEY     break a lock after showing its holder and asking for confirmation
//	lock4go bench [flags]                   uncontended and hand-off latency through a lock4go Template
//
// Each command connects to one backend (inspect to several, printing a
// section each), named by flags or by the environment, each as host:port
// or a URL:
//
//	--redis ADDR           host:port, or redis://[user:password@]host:port[/db], rediss:// for TLS (LOCK4GO_REDIS)
//	--redlock ADDRS        comma-separated host:port or Redis URLs, one per independent master (LOCK4GO_REDLOCK)
//	--etcd ENDPOINTS       comma-separated host:port or http(s)://host:port (LOCK4GO_ETCD)
//	--zookeeper HOSTS      comma-separated host:port, or zk://host:port,host:port (LOCK4GO_ZOOKEEPER)
//	--postgres ADDR        [user@]host:port[/db], or postgres://[user[:password]@]host:port/db[?sslmode=...]
//	                       (LOCK4GO_POSTGRES; without a user: PGUSER, else the OS user, as for psql)
//	--mysql DSN            [user@]host:port/db, or a go-sql-driver DSN: user:password@tcp(host:port)/db[?param=value]
//	                       (LOCK4GO_MYSQL)
//	--etcd-prefix P        the etcd executor's Options.Prefix (LOCK4GO_ETCD_PREFIX)
//	--zk-base-path P       the ZooKeeper executor's Options.BasePath (LOCK4GO_ZK_BASE_PATH)
//	--postgres-table T, --postgres-schema S the PostgreSQL executor's Options.Table and Schema (LOCK4GO_POSTGRES_TABLE, ...)
//	--mysql-table T, --mysql-database D     the MySQL executor's Options.Table and Database (LOCK4GO_MYSQL_TABLE, ...)
//	--etcd-user U, --etcd-password P        etcd credentials (LOCK4GO_ETCD_USER, LOCK4GO_ETCD_PASSWORD)
//	--zk-digest USER:PASSWORD               ZooKeeper digest credentials (LOCK4GO_ZK_DIGEST)
//	--tls-ca F, --tls-cert F, --tls-key F, --tls-insecure-skip-verify
//	                       TLS for whichever backend (LOCK4GO_TLS_CA, LOCK4GO_TLS_CERT, ...)
//	--backend NAME         which of several configured backends to use (LOCK4GO_BACKEND)
//	--timeout D            bound on connecting and on each call, default 5s (LOCK4GO_TIMEOUT)
//	--json                 machine-readable output
//
// Redis credentials go in the URL; prefer the environment to flags for
// secrets, which other users can see in the process list.
//
// inspect prints how each key is held (lock, read, or permits n), every
// holder's owner value, fencing token and lease left, and the waiters
// queued on the backend: one per process waiting for a lock (a process's
// goroutines wait in its local queue, behind one; its /debug/locks shows
// them), one per call waiting for a read lock or permit. Redis keeps no
// token for read locks and permits; ZooKeeper leases last as long as the
// holder's session ("session") and a ZooKeeper semaphore does not store
// its n; etcd counts leases in whole seconds. With --json each key is an
// object with its holders (owner, token, ttl_ms) and backend_waiters.
//
// watch polls one key every --interval (500ms) and prints a line whenever
// its holder or its number of waiters changes; it stops on SIGINT or
// SIGTERM with exit code 0.
//
// release --force shows the holder, asks for confirmation on stdin (y or
// yes; --yes skips the question) and deletes that holder's lock only if it
// still holds it: Redis compares the owner value and deletes the key,
// announcing the release to waiters; etcd deletes the holder's queue entry
// in a transaction guarded by its create revision (the holder's lease is
// kept, as it may carry the holder's other locks, so the holder is not
// told); ZooKeeper deletes the first lock node at the version it read after
// checking its creation zxid (a lock4go holder's watch on its node reports
// the lock lost at once). A holder that released meanwhile, or a new holder,
// is never broken. The broken holder is logged to stderr.
//
// bench measures, through one lock4go Template with the default
// configuration and on a key of its own, the uncontended acquire + release
// latency (p50, p99, pairs/s) and the hand-off latency with 2 and 8 waiting
// goroutines (p50, p99): the figures of docs/bench.md.
//
// Exit codes:
//
//	0  done (inspect: every key is held)
//	1  any other failure
//	2  usage error
//	3  a key is not held (inspect, release), or its holder changed before release could break it
//	4  a backend is unreachable within --timeout, or failed
//	5  release was not confirmed: nothing was broken
package main
