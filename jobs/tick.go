package jobs

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/lock4go/lock4go"
)

// Tick is one tick of a job this process took, for schedulers that lock
// and unlock around the job instead of handing it over ([Runner.Start],
// gocron's Locker). Finish it exactly once. It is safe for concurrent use.
type Tick struct {
	r     *Runner
	l     *lock4go.Lock
	b     bounds
	info  JobInfo
	begin time.Time
	done  atomic.Bool
}

// Start takes the job name for this tick, as [Runner.Run] does, without
// running anything: it returns the Tick, or nil and the Result of a tick
// that is not this process's (Skipped or NotRun). Run the job with
// [Tick.Context], then call [Tick.Finish]. Inside a run of the same job
// (ctx carries its lock) the tick is Skipped: it is running already.
func (r *Runner) Start(ctx context.Context, name string, opts ...Option) (*Tick, Result) {
	b, err := r.resolve(opts)
	if err != nil {
		return nil, r.report(ctx, name, b.executor, Result{Outcome: NotRun, Err: err}, time.Time{})
	}
	if lock4go.LockFrom(ctx, name) != nil {
		// Inside a run of this job: the Template would re-enter its lock,
		// and the tick would run twice.
		return nil, r.report(ctx, name, b.executor, Result{Outcome: Skipped}, time.Time{})
	}
	l, err := r.tpl.TryLock(ctx, name, b.lockOptions()...)
	if err != nil {
		out := NotRun
		if busy(ctx, err) {
			out, err = Skipped, nil
		}
		return nil, r.report(ctx, name, b.executor, Result{Outcome: out, Err: err}, time.Time{})
	}
	t := &Tick{r: r, l: l, b: b, begin: time.Now(),
		info: JobInfo{Name: l.Key(), Executor: l.Executor(), Owner: l.Owner(), Token: l.Token(), Started: l.AcquiredAt(), Running: true}}
	r.track(t.info)
	return t, Result{}
}

// busy reports whether err, TryLock's, says that another holder has the
// key, and nothing else: not a backend failure, nor the caller's ctx.
func busy(ctx context.Context, err error) bool {
	return errors.Is(err, lock4go.ErrNotAcquired) && !errors.Is(err, lock4go.ErrBackend) && ctx.Err() == nil
}

// Lock returns the job's lock: its Token fences the job's writes, its Err
// says whether it is still held.
func (t *Tick) Lock() *lock4go.Lock { return t.l }

// Context returns a child of parent that carries the job's lock and is
// cancelled with cause lock4go.ErrLockLost if the lock is lost (see
// lock4go.Lock.Context) or, for a job without [KeepAlive], at its
// at-most-for: the time Start returned plus AtMostFor, while the lock
// still holds.
func (t *Tick) Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := t.l.Context(parent)
	if t.b.keepAlive {
		return ctx, cancel
	}
	ctx, stop := context.WithDeadlineCause(ctx, t.begin.Add(t.b.atMostFor), errAtMostFor)
	return ctx, func() { stop(); cancel() }
}

// errAtMostFor is the cause of a job's context at its at-most-for.
var errAtMostFor = fmt.Errorf("%w: jobs: the job ran past its at-most-for", lock4go.ErrLockLost)

// Finish ends the tick of a job that returned err: the lock is released,
// or kept until the at-least-for end, and the tick reported. A second
// Finish returns a NotRun Result wrapping lock4go.ErrLockNotHeld.
func (t *Tick) Finish(ctx context.Context, err error) Result {
	if !t.done.CompareAndSwap(false, true) {
		return Result{Outcome: NotRun, Err: errFinished}
	}
	return t.r.finish(ctx, t, err)
}

// errFinished is a second Finish's error.
var errFinished = fmt.Errorf("%w: jobs: the tick was finished already", lock4go.ErrLockNotHeld)
