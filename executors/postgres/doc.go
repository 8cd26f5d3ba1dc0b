// Package postgres is the lock4go executor for PostgreSQL, over
// github.com/jackc/pgx/v5: locks for services whose only shared server is
// their database.
//
// [New] takes a *pgxpool.Pool the caller built and owns, which may go
// through PgBouncer in transaction mode: every operation is one statement
// standing alone (autocommit), with no session state, advisory lock or
// prepared statement. The executor never creates tables: run [Migrate]
// once (or apply the SQL of [Schema] with your own migration tool). Its
// role needs the rights [Grants] prints; [Check] names those it lacks, and
// the executor runs it before its first attempt. A wrong
// configuration (a missing schema, table or right) is an error wrapping
// executor.ErrInvalidConfig that says what to run, not a backend error to
// retry.
//
// A lock is a row of the table "<Table>_locks" holding its owner, its
// fencing token and the end of its lease by the database's clock. An
// acquisition is one statement that inserts the row (or takes over one
// whose lease expired) and returns a token drawn from a sequence, so
// tokens grow strictly per key across takeovers and restarts; a release is
// one statement that deletes the row if it still holds the owner; the
// Template's watchdog renews all held leases of a tick in one statement.
// Waiters queue in the database in arrival order, and a release hands the
// key to the longest waiter and wakes its process only, by pg_notify on
// that executor's channel, which one LISTEN connection per executor
// receives ([Options.ListenDSN]: it must not go through a transaction
// pooler). Read locks and semaphores are supported.
//
// Guarantees and caveats:
//
//   - An attempt whose reply was lost never returns a lease: the executor
//     voids the owner in the background, so that it takes nothing later.
//   - Every statement that writes commits synchronously, whatever the
//     session's synchronous_commit: a crash of the database loses no lock
//     the executor reported held, and tokens never go back.
//   - A failover to an asynchronous replica can lose the last
//     acquisitions, and hand out a lock or a token again; with synchronous
//     replication held locks survive it.
//   - Each NOTIFY signals every LISTENing backend of the database: a
//     hand-off costs a few microseconds per process that listens (from its
//     first wait until 30s after its last).
//
// The schema, the protocol, PgBouncer and failover are described in
// docs/postgres.md of the repository:
// https://github.com/lock4go/lock4go/blob/main/docs/postgres.md
package postgres
