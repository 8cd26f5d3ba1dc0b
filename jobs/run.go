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
// lock4go.ErrLockLost if the lock is lost: at its at-most-for without
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
	if fn == nil {
		err := fmt.Errorf("%w: jobs: Run of %q with a nil function", lock4go.ErrInvalidConfig, name)
		return r.report(ctx, name, r.cfg.Executor, Result{Outcome: NotRun, Err: err}, time.Time{})
	}
	t, res := r.Start(ctx, name, opts...)
	if t == nil {
		return res
	}
	lctx, cancel := t.Context(ctx)
	returned := false
	defer func() {
		if !returned {
			cancel()
			t.Finish(ctx, errPanicked)
		}
	}()
	ferr := fn(lctx)
	returned = true
	cancel()
	return t.Finish(ctx, ferr)
}

// errPanicked is the error of a job whose function panicked.
var errPanicked = errors.New("jobs: the job panicked")

// finish ends the lock of t, whose job returned ferr, and reports the
// tick.
func (r *Runner) finish(ctx context.Context, t *Tick, ferr error) Result {
	end := time.Now()
	info := t.info
	res := Result{Outcome: Ran, Token: info.Token, Started: info.Started, Duration: end.Sub(t.begin)}
	lost := t.l.Err()
	if lost == nil && !t.b.keepAlive && !end.Before(t.begin.Add(t.b.atMostFor)) {
		lost = errAtMostFor // told at its at-most-for while the lock held: free it now
	}
	if lost != nil {
		_ = t.l.Release(ctx) // frees the key, or only drops the handle of a lost lock
		r.untrack(info, time.Time{}, nil)
		res.Outcome, res.Err = Failed, errors.Join(ferr, lost)
		return r.report(ctx, info.Name, info.Executor, res, end)
	}
	if ferr != nil {
		res.Outcome, res.Err = Failed, ferr
	}
	until := info.Started.Add(t.b.atLeastFor)
	var err error
	var kept <-chan struct{}
	if t.b.atLeastFor > 0 && until.After(time.Now()) {
		res.HeldUntil = until
		err = t.l.ReleaseAt(ctx, until)
		if err == nil && t.l.Err() == nil {
			// The executor cannot shorten the lease: this process keeps
			// the lock, and a timer releases it at until.
			kept = t.l.Done()
		}
	} else {
		err = t.l.Release(ctx)
	}
	r.untrack(info, res.HeldUntil, kept)
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
