package lock4go

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/lifecycle"
	"github.com/lock4go/lock4go/internal/turns"
)

// Template acquires and releases locks through its executors, the way
// Lock4j's LockTemplate does. It is safe for concurrent use.
type Template struct {
	cfg      Config
	observer Observer      // cfg.Observer, or nil for none
	execs    []*registered // by priority, then registration order
	byName   map[string]*registered
	primary  *registered
	turns    turns.Turns[turnKey, hold] // the local queue: one turn per executor and key
	shared   sharedHolds
	wd       watchdog
	holds    atomic.Int64
	failures failureLog
	owners   ownerSource
	// Joint bounds of attempts and releases (deadlines.go).
	attemptJoint, releaseJoint *jointBounds
}

// registered is an executor as the Template uses it: what it asked of it
// once, at New, and its round-trip statistics.
type registered struct {
	e      executor.Executor
	name   string
	waiter executor.Waiter // e as a Waiter, or nil
	caps   executor.Capabilities
	wait   executor.WaitModel // where a caller waits for a busy key
	stats  execStats
}

// register returns e as the Template uses it.
func register(e executor.Executor) *registered {
	r := &registered{e: e, name: e.Name(), caps: e.Capabilities()}
	r.waiter, _ = e.(executor.Waiter)
	r.wait = r.caps.Wait
	return r
}

// New returns a Template over execs. It fails with [ErrInvalidConfig] for
// negative durations, no executors, a nil or unnamed executor, a duplicate
// name or a Config.Expire shorter than an executor's shortest lease
// (executor.Capabilities.MinTTL), and with [ErrUnknownExecutor] when
// cfg.Primary names none of them.
func New(cfg Config, execs ...executor.Executor) (*Template, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if len(execs) == 0 {
		return nil, fmt.Errorf("%w: no executors", ErrInvalidConfig)
	}
	t := &Template{cfg: cfg, byName: make(map[string]*registered, len(execs)),
		attemptJoint: newJointBounds(cfg.AttemptGrace, errNoAnswer),
		releaseJoint: newJointBounds(cfg.ReleaseTimeout, errReleaseTimeout)}
	if _, nop := cfg.Observer.(nopObserver); !nop {
		t.observer = cfg.Observer
	}
	for i, e := range execs {
		if lifecycle.IsNil(e) {
			return nil, fmt.Errorf("%w: executor %d is nil", ErrInvalidConfig, i)
		}
		r := register(e)
		if r.name == "" {
			return nil, fmt.Errorf("%w: executor %d has an empty name", ErrInvalidConfig, i)
		}
		if _, dup := t.byName[r.name]; dup {
			return nil, fmt.Errorf("%w: two executors named %q", ErrInvalidConfig, r.name)
		}
		if r.wait == executor.WaitQueued && r.waiter == nil {
			return nil, fmt.Errorf("%w: executor %q waits queued (Capabilities.Wait) but is no executor.Waiter", ErrInvalidConfig, r.name)
		}
		if err := r.grants(cfg.Expire); err != nil {
			return nil, fmt.Errorf("Config.Expire: %w", err)
		}
		t.byName[r.name] = r
		t.execs = append(t.execs, r)
	}
	slices.SortStableFunc(t.execs, func(a, b *registered) int { return a.e.Priority() - b.e.Priority() })
	t.primary = t.execs[0]
	if cfg.Primary != "" {
		p, ok := t.byName[cfg.Primary]
		if !ok {
			return nil, fmt.Errorf("%w: Config.Primary %q (have %s)", ErrUnknownExecutor, cfg.Primary, t.names())
		}
		t.primary = p
	}
	t.cfg.Primary = t.primary.name
	t.wd.t = t
	return t, nil
}

// Config returns the Template's configuration with defaults filled in;
// Primary names the executor used by default.
func (t *Template) Config() Config { return t.cfg }

// ExecutorNames returns the names of the registered executors, in
// priority order. (The executors themselves are [Executors], a slice that
// wire provider sets pass to [New].)
func (t *Template) ExecutorNames() []string {
	names := make([]string, len(t.execs))
	for i, r := range t.execs {
		names[i] = r.name
	}
	return names
}

func (t *Template) names() string { return strings.Join(t.ExecutorNames(), ", ") }

// Do runs fn while holding key and releases it afterwards, also when fn
// panics. fn's context is cancelled with cause [ErrLockLost] if the lock is
// lost while fn runs, and it carries the lock, so nested Lock or Do calls on
// the same key re-enter. Do returns fn's error; if the lock was lost while
// fn ran, the error also wraps [ErrLockLost], since fn's work may then not
// have been exclusive.
func (t *Template) Do(ctx context.Context, key string, fn func(ctx context.Context) error, opts ...LockOption) error {
	if fn == nil {
		return fmt.Errorf("%w: Do with a nil function", ErrInvalidConfig)
	}
	l, err := t.Lock(ctx, key, opts...)
	if err != nil {
		return err
	}
	return t.run(ctx, l, fn)
}

// run runs fn under l, as Do and DoAll describe, and releases l.
func (t *Template) run(ctx context.Context, l *Lock, fn func(ctx context.Context) error) (err error) {
	lctx, cancel := l.Context(ctx)
	defer func() {
		cancel()
		lostErr := l.Err()
		if rerr := l.Release(ctx); rerr != nil && lostErr == nil {
			// The lock was held until now by the local clock; the work was
			// protected. The lease ends by itself.
			t.cfg.Logger.LogAttrs(ctx, levelWarn, "lock4go: release after Do failed",
				attrKey(l.Key()), attrExec(l.Executor()), attrErr(rerr))
		}
		if lostErr != nil {
			err = errors.Join(err, lostErr)
		}
	}()
	return fn(lctx)
}

// Release releases l; it is the same as l.Release(ctx).
func (t *Template) Release(ctx context.Context, l *Lock) error {
	if l == nil {
		return fmt.Errorf("%w: Release of a nil lock", ErrInvalidConfig)
	}
	return l.Release(ctx)
}
