// Package jobs runs scheduled jobs so that each tick runs on one process
// of a fleet, with ShedLock's semantics made safe: a job has a name (its
// lock key) and two bounds.
//
//   - At most for: the job's lease, the safety net for a holder that dies
//     or stalls ([AtMostFor]). Without [KeepAlive] it is not renewed: a job
//     still running after it loses its lock, and its context is cancelled
//     with cause lock4go.ErrLockLost. With KeepAlive the Template's
//     watchdog renews it while the job runs.
//   - At least for: after the job returns, it stays taken until the time
//     it was taken plus AtLeastFor ([AtLeastFor]), so that an instance whose
//     clock or schedule runs a little late does not run the same tick
//     again. Where the backend can (Redis, Redlock, PostgreSQL, memory), the
//     lease is shortened to that end by the backend's own clock; on etcd and
//     ZooKeeper this process releases it at that end by a timer, so a
//     process that shuts down calls [Runner.Drain] before it closes the
//     executors (closing them frees the job at once).
//
// A busy job is skipped, not queued: [Runner.Run] makes one attempt and
// returns a [Result] that says whether the job ran, was skipped, failed, or
// could not be tried. The job's context carries its lock: its fencing token
// (lock4go.LockFrom(ctx, name).Token()) lets the resource it writes reject a
// holder that stalled past its lease.
//
// Adapters for schedulers live in packages of their own, so that only their
// importers link the scheduler: jobs/gocronlock (go-co-op/gocron v2's
// Locker and Elector) and jobs/cronlock (robfig/cron v3's JobWrapper).
// jobs/shedlock reads and writes ShedLock's own tables and keys, so that Go
// and Java services skip each other's ticks. docs/jobs.md compares them,
// backend by backend.
package jobs
