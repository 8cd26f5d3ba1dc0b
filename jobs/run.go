package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go"
)

// Run runs fn for this tick of the job name, unless the job is taken:
// one attempt on the lock, never a wait (a tick another process runs is
// skipped, not queued). The name is the lock key, used as given.
//
// While fn runs, its context carries the lock (lock4go.LockFrom(ctx,
// name).Token() fences its writes) and is cancelled with cause
// lock4go.ErrLockLost if the lock is lost: past its at-most-for without
// [KeepAlive], or when a renewal finds it gone. When fn returns, the job
// stays taken until its at-least-for end, the time the lock was taken
// plus AtLeastFor: on Redis, Redlock and PostgreSQL the backend is asked
// to keep the key that long by its own clock, and frees it by itself even
// if this process dies; on etcd and ZooKeeper this process keeps the lock
// and releases it at that end by a timer (lock4go.Lock.ReleaseAt).
//
// The [Result] says what happened, without an error to parse: Ran,
// Skipped, Failed or NotRun. If fn panics, the lock is released as for a
// failure and the panic goes on.
func (r *Runner) Run(ctx context.Context, name string, fn func(ctx context.Context) error, opts ...Option) Result {
	b, err := r.resolve(opts)
	if err == nil && fn == nil {
		err = fmt.Errorf("%w: jobs: Run of %q with a nil function", lock4go.ErrInvalidConfig, name)
	}
	if err != nil {
		return r.report(ctx, name, b.executor, Result{Outcome: NotRun, Err: err}, time.Time{})
	}
	l, err := r.tpl.TryLock(ctx, name, b.lockOptions()...)
	if err != nil {
		out := NotRun
		if busy(ctx, err) {
			out, err = Skipped, nil
		}
		return r.report(ctx, name, b.executor, Result{Outcome: out, Err: err}, time.Time{})
	}
	return r.hold(ctx, l, b, fn)
}

// busy reports whether err, TryLock's, says that another holder has the
// key, and nothing else: not a backend failure, nor the caller's ctx.
func busy(ctx context.Context, err error) bool {
	return errors.Is(err, lock4go.ErrNotAcquired) && !errors.Is(err, lock4go.ErrBackend) && ctx.Err() == nil
}

// hold runs fn under l and ends the lock at the job's at-least-for end.
func (r *Runner) hold(ctx context.Context, l *lock4go.Lock, b bounds, fn func(ctx context.Context) error) Result {
	info := JobInfo{Name: l.Key(), Executor: l.Executor(), Owner: l.Owner(), Token: l.Token(), Started: l.AcquiredAt(), Running: true}
	r.track(info)
	lctx, cancel := l.Context(ctx)
	begin := time.Now()
	returned := false
	defer func() {
		if !returned {
			cancel()
			r.finish(ctx, l, b, info, begin, errPanicked)
		}
	}()
	ferr := fn(lctx)
	returned = true
	cancel()
	return r.finish(ctx, l, b, info, begin, ferr)
}

// errPanicked is the error of a job whose function panicked.
var errPanicked = errors.New("jobs: the job panicked")

// finish ends the lock of a job whose function returned ferr, and reports
// the tick.
func (r *Runner) finish(ctx context.Context, l *lock4go.Lock, b bounds, info JobInfo, begin time.Time, ferr error) Result {
	end := time.Now()
	res := Result{Outcome: Ran, Token: info.Token, Started: info.Started, Duration: end.Sub(begin)}
	if lost := l.Err(); lost != nil {
		_ = l.Release(ctx) // already ended: this only drops the handle
		r.untrack(info, time.Time{})
		res.Outcome, res.Err = Failed, errors.Join(ferr, lost)
		return r.report(ctx, info.Name, info.Executor, res, end)
	}
	if ferr != nil {
		res.Outcome, res.Err = Failed, ferr
	}
	until := info.Started.Add(b.atLeastFor)
	var err error
	if b.atLeastFor > 0 && until.After(time.Now()) {
		res.HeldUntil = until
		err = l.ReleaseAt(ctx, until)
	} else {
		err = l.Release(ctx)
	}
	r.untrack(info, res.HeldUntil)
	if err != nil {
		r.cfg.Logger.LogAttrs(ctx, slogWarn, "jobs: releasing a job's lock failed; its lease ends by itself",
			attrJob(info.Name), attrErr(err))
	}
	return r.report(ctx, info.Name, info.Executor, res, end)
}

// report tells the observer of a tick whose function ended at end (zero
// when it did not run), and returns res.
func (r *Runner) report(ctx context.Context, name, exec string, res Result, end time.Time) Result {
	if r.cfg.Observer == nil {
		return res
	}
	e := Event{Name: name, Executor: exec, Outcome: res.Outcome, Err: res.Err, Token: res.Token, Duration: res.Duration}
	if !res.HeldUntil.IsZero() && !end.IsZero() {
		e.HeldPastEnd = max(res.HeldUntil.Sub(end), 0)
	}
	r.cfg.Observer.Observe(ctx, e)
	return res
}
