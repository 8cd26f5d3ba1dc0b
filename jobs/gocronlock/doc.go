// Package gocronlock runs go-co-op/gocron v2 jobs once across a fleet
// through lock4go: a [Locker] takes each run's lock (gocron passes the
// job's name as the key), with ShedLock's bounds from package jobs, and an
// [Elector] lets one leader run every job. Only programs that import this
// package link gocron.
//
// Per-job bounds: gocron takes a Locker per job
// (gocron.WithDistributedJobLocker), so a job with bounds of its own gets
// a Locker of its own:
//
//	s.NewJob(gocron.CronJob("0 2 * * *", false), task,
//		gocron.WithName("settlement"),
//		gocron.WithDistributedJobLocker(gocronlock.NewLocker(runner,
//			jobs.AtMostFor(time.Hour), jobs.AtLeastFor(time.Minute))))
//
// gocron hands a job its own context, not the lock's: a job that must
// stop when its lock is lost, or fence its writes with the lock's token,
// asks [Locker.Context] (or [Elector.Context]) for one.
package gocronlock
