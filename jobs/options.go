package jobs

import (
	"fmt"
	"time"

	"github.com/lock4go/lock4go"
)

// Option sets a bound of one job, over the [Config] of its [Runner].
type Option func(*bounds)

// bounds are one job's: its lease, its at-least-for, and where it runs.
type bounds struct {
	atMostFor  time.Duration
	atLeastFor time.Duration
	keepAlive  bool
	executor   string
}

// AtMostFor sets the job's lease: a holder that dies, or stalls, frees the
// job d after it took it (ShedLock's lockAtMostFor). Without [KeepAlive]
// the lease is not renewed: a job still running d after it was taken has
// its context cancelled with cause lock4go.ErrLockLost (by this process's
// clock), and the process frees the job when the job returns. A process
// that dies frees it when the backend's lease ends, a twentieth and 5ms
// after d (room for the Template's margin for clock rates and Redlock's
// drift, so that the lock is still held when the job is told). Zero means
// the Runner's [Config.AtMostFor]; negative is lock4go.ErrInvalidConfig.
func AtMostFor(d time.Duration) Option { return func(b *bounds) { b.atMostFor = d } }

// AtLeastFor keeps the job taken until d after it was taken, however soon
// it returns (ShedLock's lockAtLeastFor), so that an instance whose clock
// or schedule runs up to d late finds this tick taken and skips it. It
// must not exceed the job's at-most-for. Zero means the Runner's
// [Config.AtLeastFor]; negative is lock4go.ErrInvalidConfig.
func AtLeastFor(d time.Duration) Option { return func(b *bounds) { b.atLeastFor = d } }

// KeepAlive renews the job's lease while the job runs, every third of it
// (the Template's watchdog): a job may run longer than its at-most-for,
// and still frees its lock at most one lease after its holder died.
func KeepAlive() Option { return func(b *bounds) { b.keepAlive = true } }

// Executor runs the job's lock on the named executor of the Template.
// The empty name means the Runner's [Config.Executor].
func Executor(name string) Option { return func(b *bounds) { b.executor = name } }

// resolve applies opts over the Runner's defaults and checks them.
func (r *Runner) resolve(opts []Option) (bounds, error) {
	b := bounds{}
	for _, opt := range opts {
		if opt != nil {
			opt(&b)
		}
	}
	if b.atMostFor < 0 || b.atLeastFor < 0 {
		return b, fmt.Errorf("%w: jobs: negative AtMostFor (%v) or AtLeastFor (%v)", lock4go.ErrInvalidConfig, b.atMostFor, b.atLeastFor)
	}
	if b.atMostFor == 0 {
		b.atMostFor = r.cfg.AtMostFor
	}
	if b.atLeastFor == 0 {
		b.atLeastFor = r.cfg.AtLeastFor
	}
	if b.executor == "" {
		b.executor = r.cfg.Executor
	}
	b.keepAlive = b.keepAlive || r.cfg.KeepAlive
	if b.atMostFor == 0 {
		// No bound: the Template's renewed lease.
		b.atMostFor, b.keepAlive = r.tpl.Config().Expire, true
	}
	if b.atLeastFor > b.atMostFor && !b.keepAlive {
		return b, fmt.Errorf("%w: jobs: AtLeastFor %v exceeds AtMostFor %v", lock4go.ErrInvalidConfig, b.atLeastFor, b.atMostFor)
	}
	return b, nil
}

// lockOptions returns the options of the job's lock: one attempt, with
// its lease. A fixed lease asks the backend for the at-most-for plus a
// twentieth and 5ms, so that the lock's local end (the lease less the
// Template's safety margin, a fiftieth, and on Redlock less its drift, 1%
// and 2ms by default) falls after the at-most-for: the job is told at the
// at-most-for by [Tick.Context]'s deadline while the lock still holds, and
// no other process can take the job before it.
func (b bounds) lockOptions() []lock4go.LockOption {
	lease := lock4go.WithExpire(b.atMostFor + b.atMostFor/20 + 5*time.Millisecond)
	if b.keepAlive {
		lease = lock4go.WithLease(b.atMostFor)
	}
	return []lock4go.LockOption{lock4go.NoWait(), lease, lock4go.WithExecutor(b.executor)}
}
