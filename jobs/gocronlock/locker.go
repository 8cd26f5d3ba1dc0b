package gocronlock

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-co-op/gocron/v2"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/jobs"
)

// Locker is a gocron.Locker: each run of a job takes its lock through a
// [jobs.Runner] with one attempt (a run another instance holds is
// skipped: gocron counts it as a skip and calls AfterLockError), and its
// Unlock keeps the job until its at-least-for end. It is safe for
// concurrent use.
type Locker struct {
	r    *jobs.Runner
	opts []jobs.Option

	mu    sync.Mutex
	ticks map[string]*jobs.Tick // the runs this process holds, by job name
}

var _ gocron.Locker = (*Locker)(nil)

// NewLocker returns a Locker whose jobs run with opts over the Runner's
// defaults.
func NewLocker(r *jobs.Runner, opts ...jobs.Option) *Locker {
	return &Locker{r: r, opts: opts, ticks: make(map[string]*jobs.Tick)}
}

// Lock takes the job key (gocron passes the job's name) for this run. A
// job another instance holds is an error wrapping lock4go.ErrNotAcquired;
// a backend that cannot answer, one wrapping lock4go.ErrBackend.
func (k *Locker) Lock(ctx context.Context, key string) (gocron.Lock, error) {
	t, res := k.r.Start(ctx, key, k.opts...)
	if t == nil {
		if res.Outcome == jobs.Skipped {
			return nil, fmt.Errorf("gocronlock: job %q is taken: %w", key, lock4go.ErrNotAcquired)
		}
		return nil, fmt.Errorf("gocronlock: job %q: %w", key, res.Err)
	}
	k.mu.Lock()
	k.ticks[key] = t
	k.mu.Unlock()
	return &lock{k: k, key: key, t: t}, nil
}

// Context returns a child of parent for the running job key: it carries
// the run's lock (lock4go.LockFrom(ctx, key).Token() fences the job's
// writes) and is cancelled with cause lock4go.ErrLockLost if the lock is
// lost. Called where this process does not hold the job (outside a run,
// or for another name), it returns a context already cancelled with cause
// lock4go.ErrLockNotHeld: the job must not act.
func (k *Locker) Context(parent context.Context, key string) (context.Context, context.CancelFunc) {
	k.mu.Lock()
	t := k.ticks[key]
	k.mu.Unlock()
	if t == nil {
		ctx, cancel := context.WithCancelCause(parent)
		cancel(fmt.Errorf("gocronlock: job %q is not held here: %w", key, lock4go.ErrLockNotHeld))
		return ctx, func() {}
	}
	return t.Context(parent)
}

// lock is one run's gocron.Lock.
type lock struct {
	k   *Locker
	key string
	t   *jobs.Tick
}

// Unlock ends the run: the job's lock is released, or kept until its
// at-least-for end. gocron does not say whether the job failed: the
// Runner's observer sees every run that kept its lock as Ran.
func (l *lock) Unlock(ctx context.Context) error {
	l.k.mu.Lock()
	if l.k.ticks[l.key] == l.t {
		delete(l.k.ticks, l.key)
	}
	l.k.mu.Unlock()
	res := l.t.Finish(ctx, nil)
	if res.Outcome == jobs.Ran {
		return nil
	}
	return res.Err
}
