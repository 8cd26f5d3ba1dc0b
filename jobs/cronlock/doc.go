// Package cronlock runs robfig/cron v3 jobs once across a fleet through
// lock4go: [Wrap] is a cron.JobWrapper for jobs as they are, and [Func] a
// cron.Job whose function gets a context that carries the lock. cron does
// not name its jobs, so both take the job's name, its lock key. Only
// programs that import this package link cron.
package cronlock
