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
// Each command connects to the backends named by flags or the environment
// (inspect prints a section for each):
//
//	--redis ADDR           host:port, or redis://[user:password@]host:port[/db], rediss:// for TLS (LOCK4GO_REDIS)
//	--redlock ADDRS        comma-separated host:port or Redis URLs, one per independent master (LOCK4GO_REDLOCK)
//	--etcd ENDPOINTS       comma-separated host:port or http(s)://host:port (LOCK4GO_ETCD)
//	--zookeeper HOSTS      comma-separated host:port, or zk://host:port,host:port (LOCK4GO_ZOOKEEPER)
//	--postgres ADDR        [user@]host:port[/db] or a postgres:// URL (LOCK4GO_POSTGRES; user: PGUSER, else the OS user)
//	--mysql DSN            [user@]host:port/db or a go-sql-driver DSN: user:password@tcp(host:port)/db (LOCK4GO_MYSQL)
//	--etcd-prefix, --zk-base-path, --postgres-table, --postgres-schema, --mysql-table, --mysql-database:
//	                       the executors' namespaces
//	--etcd-user U, --etcd-password P        etcd credentials (LOCK4GO_ETCD_USER, LOCK4GO_ETCD_PASSWORD)
//	--zk-digest USER:PASSWORD               ZooKeeper digest credentials (LOCK4GO_ZK_DIGEST)
//	--tls-ca F, --tls-cert F, --tls-key F, --tls-insecure-skip-verify  TLS (LOCK4GO_TLS_CA, ...)
//	--backend NAME         which of several configured backends to use (LOCK4GO_BACKEND)
//	--timeout D            bound on connecting and on each call, default 5s (LOCK4GO_TIMEOUT)
//	--json                 machine-readable output
//
// Prefer the environment to flags for secrets (other users see flags).
//
// inspect prints how each key is held (lock, read, or permits n), every
// holder's owner value, fencing token and lease left, and the waiters
// queued on the backend (one per process waiting for a lock); watch polls
// one key every --interval (500ms) and prints a line whenever that changes;
// release --force shows the holder, asks for confirmation (--yes skips it)
// and breaks that holder's lock only if it still holds it; bench measures
// the uncontended and hand-off latency through a Template. docs/cli.md of
// the repository shows each command's output and what each backend keeps.
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
