package jobs

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/lock4go/lock4go"
)

// Config holds a [Runner]'s defaults for its jobs. The zero value means:
// no bound on a job's run (its lease is the Template's Config.Expire,
// renewed while it runs), no at-least-for, the Template's primary
// executor, no observer, slog.Default().
type Config struct {
	// AtMostFor is the lease of a job without its own [AtMostFor]: see
	// there. Zero means none: the Template's Config.Expire, renewed while
	// the job runs ([KeepAlive]). Negative is lock4go.ErrInvalidConfig.
	AtMostFor time.Duration
	// AtLeastFor is the at-least-for of a job without its own
	// [AtLeastFor]. Zero means none: a job's lock is released when it
	// returns. Negative is lock4go.ErrInvalidConfig.
	AtLeastFor time.Duration
	// KeepAlive renews every job's lease while it runs, as [KeepAlive].
	KeepAlive bool
	// Executor names the executor of jobs without their own [Executor].
	// Zero means the Template's primary one.
	Executor string
	// Observer is told of every tick. Nil means none.
	Observer Observer
	// Logger receives the release failures of jobs that ran (the job's
	// lease then ends by itself). Nil means slog.Default().
	Logger *slog.Logger
}

// Runner runs scheduled jobs through a Template so that each tick runs on
// one process of a fleet: ShedLock's semantics. It is safe for concurrent
// use. A Runner holds no goroutine; it needs no Close, but a process that
// shuts down calls [Runner.Drain] before it closes the executors.
type Runner struct {
	tpl *lock4go.Template
	cfg Config

	mu   sync.Mutex
	held map[string]JobInfo // the jobs this process holds, by name
	// kept are the locks of jobs that returned and that this process keeps
	// until their at-least-for end (executors that cannot shorten a lease),
	// by name: each the Lock's Done channel.
	kept map[string]<-chan struct{}
	// changed, made by a Drain that waits, is closed (and dropped) when a
	// job stops running.
	changed chan struct{}
}

// New returns a Runner over tpl. It fails with lock4go.ErrInvalidConfig
// for a nil Template or negative durations, and with
// lock4go.ErrUnknownExecutor when cfg.Executor names none of tpl's.
func New(tpl *lock4go.Template, cfg Config) (*Runner, error) {
	if tpl == nil {
		return nil, fmt.Errorf("%w: jobs: nil Template", lock4go.ErrInvalidConfig)
	}
	if cfg.AtMostFor < 0 || cfg.AtLeastFor < 0 {
		return nil, fmt.Errorf("%w: jobs: negative Config.AtMostFor (%v) or Config.AtLeastFor (%v)",
			lock4go.ErrInvalidConfig, cfg.AtMostFor, cfg.AtLeastFor)
	}
	if cfg.Executor != "" && !known(tpl, cfg.Executor) {
		return nil, fmt.Errorf("%w: jobs: Config.Executor %q (have %v)", lock4go.ErrUnknownExecutor, cfg.Executor, tpl.ExecutorNames())
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	r := &Runner{tpl: tpl, cfg: cfg, held: make(map[string]JobInfo), kept: make(map[string]<-chan struct{})}
	if _, err := r.resolve(nil); err != nil {
		return nil, err
	}
	return r, nil
}

// Template returns the Template the Runner locks through.
func (r *Runner) Template() *lock4go.Template { return r.tpl }

func known(tpl *lock4go.Template, name string) bool {
	for _, n := range tpl.ExecutorNames() {
		if n == name {
			return true
		}
	}
	return false
}
