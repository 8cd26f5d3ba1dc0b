// Package shedlock keeps scheduled jobs in ShedLock's own layouts, so that
// Go services (through lock4go's jobs package) and Java services (through
// ShedLock) skip each other's ticks while a fleet moves from one to the
// other. It is opt-in: two executors for a lock4go Template, one per
// layout.
//
//   - [NewJDBC]: ShedLock's JDBC table, shedlock(name, lock_until,
//     locked_at, locked_by), with the statements of its JdbcTemplate
//     provider in usingDbTime mode: every time is the database's. The
//     statements are a [Statements] value per database ([Postgres]); a
//     MySQL variant fills in its own.
//   - [NewRedis]: ShedLock's Redis provider's layout: the key
//     "job-lock:<env>:<name>" holding "ADDED:<time>@<host>:<id>", with a
//     PX TTL.
//
// These layouts have less than lock4go's own: no wait queue (jobs never
// wait), and a fencing token made of the backend's clock (the lock's
// locked_at, or the Redis server's TIME at the grant, in microseconds),
// which increases as long as that clock does not step back. docs/jobs.md
// tells how to move a job, and what ShedLock's own settings must be.
package shedlock
