// Package mysql is the lock4go executor for MySQL 8.0+ and MariaDB 10.6+,
// over database/sql (github.com/go-sql-driver/mysql): locks for services
// whose shared server is their MySQL database, without GET_LOCK's
// session-scoped locks, which a pool or proxy that recycles connections
// loses or hands to the wrong client.
//
// [New] takes a *sql.DB the caller opened and owns; its DSN needs no
// particular setting. Every operation is one statement standing alone: a
// CALL of a stored procedure that runs one transaction of its own, sent as
// text, with no session state, user-level lock or prepared statement. The
// executor never creates tables: run [Migrate] once (or apply the SQL of
// [Schema] with your own migration tool). Its user needs the rights
// [Grants] prints; [Check] names those it lacks, and the executor runs it
// before its first acquisition. A wrong configuration (a missing table,
// procedure or right, a server that may lose commits) is an error wrapping
// executor.ErrInvalidConfig that says what to do, not a backend error to
// retry.
//
// A lock is a row of the table "<Table>_locks" holding its owner, its
// fencing token and the end of its lease by the server's clock. An
// acquisition is one statement that inserts the row (or takes over one
// whose lease expired) and draws a token from an AUTO_INCREMENT, so tokens
// grow strictly per key across takeovers and restarts; a release is one
// statement that deletes the row if it still holds the owner; the
// Template's watchdog renews all held leases of a tick in one statement.
// Waiters queue in the database in arrival order, and a release hands the
// key to the longest waiter and wakes its process only: each waiting
// executor keeps one connection that sleeps in the server until a release
// interrupts it (KILL QUERY, found by a named lock the connection holds).
// Read locks and semaphores are supported.
//
// Guarantees and caveats:
//
//   - An acquisition whose reply was lost never returns a lease: the
//     executor voids the owner in the background, so that the statement
//     takes nothing should it land later.
//   - The executor refuses a server whose settings may lose acknowledged
//     commits in a crash (innodb_flush_log_at_trx_commit, sync_binlog):
//     they are global, so it cannot make its own commits durable, as the
//     PostgreSQL executor does. [Options.AllowUnsafeDurability] accepts
//     them.
//   - A failover to an asynchronous replica can lose the last
//     acquisitions, and hand out a lock or a token again.
//   - Executors that share keys should connect as one MySQL user: a
//     release wakes the waiters of another user's executor only if it may
//     kill that user's statements (CONNECTION_ADMIN); otherwise those
//     waiters get the key at their retry interval.
//
// The schema, the protocol, pools and proxies, and failover are described
// in docs/mysql.md of the repository:
// https://github.com/lock4go/lock4go/blob/main/docs/mysql.md
package mysql
