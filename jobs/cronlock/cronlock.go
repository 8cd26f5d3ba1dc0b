package cronlock

import (
	"context"

	"github.com/robfig/cron/v3"

	"github.com/lock4go/lock4go/jobs"
)

// Wrap returns a cron.JobWrapper that runs the jobs it wraps as the job
// name through r, with opts over r's defaults: a tick another instance
// runs is skipped, and the job stays taken until its at-least-for end.
// The Runner's observer hears of every tick. A cron.Job has no context,
// so it cannot be told of a lost lock: use [Func] for jobs that must.
func Wrap(r *jobs.Runner, name string, opts ...jobs.Option) cron.JobWrapper {
	return func(j cron.Job) cron.Job {
		return Func(r, name, func(context.Context) error { j.Run(); return nil }, opts...)
	}
}

// Func returns a cron.Job that runs fn as the job name through r, with
// opts over r's defaults, as jobs.Runner.Run does: fn's context carries the
// lock (its token fences fn's writes) and is cancelled with cause
// lock4go.ErrLockLost if the lock is lost.
func Func(r *jobs.Runner, name string, fn func(ctx context.Context) error, opts ...jobs.Option) cron.Job {
	return cron.FuncJob(func() { r.Run(context.Background(), name, fn, opts...) })
}
