package lock4go

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/kit"
)

// Template acquires and releases locks through its executors, the way
// Lock4j's LockTemplate does. It is safe for concurrent use.
type Template struct {
	cfg      Config
	execs    []*registered // by priority, then registration order
	byName   map[string]*registered
	primary  *registered
	queue    localQueue
	shared   sharedHolds
	wd       watchdog
	held     atomic.Int64
	failures failureLog
}

// registered is an executor and the Template's round-trip statistics of it.
type registered struct {
	e      executor.Executor
	waiter executor.Waiter // e as a Waiter, or nil
	caps   executor.Capabilities
	stats  execStats
}

// clock returns the time a round trip on r starts, or the zero time for
// an in-process executor, whose calls cost less than reading the clock.
func (r *registered) clock() time.Time {
	if r.caps.InProcess {
		return time.Time{}
	}
	return time.Now()
}

// elapsed returns the round trip from sent (see clock) to end, zero when
// it was not timed.
func elapsed(sent, end time.Time) time.Duration {
	if sent.IsZero() {
		return 0
	}
	return end.Sub(sent)
}

// New returns a Template over execs. It fails with [ErrInvalidConfig] for
// negative durations, no executors, a nil or unnamed executor or a duplicate
// name, and with [ErrUnknownExecutor] when cfg.Primary names none of them.
func New(cfg Config, execs ...executor.Executor) (*Template, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if len(execs) == 0 {
		return nil, fmt.Errorf("%w: no executors", ErrInvalidConfig)
	}
	t := &Template{cfg: cfg, byName: make(map[string]*registered, len(execs))}
	for i, e := range execs {
		if kit.IsNil(e) {
			return nil, fmt.Errorf("%w: executor %d is nil", ErrInvalidConfig, i)
		}
		name := e.Name()
		if name == "" {
			return nil, fmt.Errorf("%w: executor %d has an empty name", ErrInvalidConfig, i)
		}
		if _, dup := t.byName[name]; dup {
			return nil, fmt.Errorf("%w: two executors named %q", ErrInvalidConfig, name)
		}
		r := &registered{e: e, waiter: asWaiter(e), caps: e.Capabilities()}
		t.byName[name] = r
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
	t.cfg.Primary = t.primary.e.Name()
	t.wd.t = t
	return t, nil
}

// Config returns the Template's configuration with defaults filled in;
// Primary names the executor used by default.
func (t *Template) Config() Config { return t.cfg }

// Executors returns the names of the registered executors, in priority order.
func (t *Template) Executors() []string {
	names := make([]string, len(t.execs))
	for i, r := range t.execs {
		names[i] = r.e.Name()
	}
	return names
}

func (t *Template) names() string { return strings.Join(t.Executors(), ", ") }

// Lock acquires key, waiting up to the acquire timeout while it is busy; an
// attempt in flight when the timeout passes finishes within the attempt
// grace ([Config.AttemptGrace]) and its answer counts, so a healthy backend
// never yields [ErrBackend]. The key is used as given (key builders add Config.KeyPrefix). When ctx carries
// this key's lock (inside [Template.Do] or [Lock.Context]) Lock re-enters it
// instead of waiting for itself. The caller must Release the returned Lock.
//
// Errors: [ErrInvalidKey], [ErrInvalidConfig], [ErrUnknownExecutor], or an
// [*AcquireError] wrapping [ErrNotAcquired] or [ErrBackend].
func (t *Template) Lock(ctx context.Context, key string, opts ...LockOption) (*Lock, error) {
	return t.lock(ctx, key, opts, false)
}

// TryLock makes a single attempt on key, bounded by the attempt grace, and
// does not wait: it is Lock with [NoWait]. A busy key is an
// [*AcquireError] wrapping [ErrNotAcquired].
func (t *Template) TryLock(ctx context.Context, key string, opts ...LockOption) (*Lock, error) {
	return t.lock(ctx, key, opts, true)
}

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

// options resolves opts over the Template's config and picks the executor
// they name: what every call with options needs first.
func (t *Template) options(opts []LockOption) (lockOptions, *registered, error) {
	o, err := t.cfg.resolve(opts)
	if err != nil {
		return o, nil, err
	}
	r, err := t.executor(o.executor)
	return o, r, err
}

// executor returns the executor named name, or the primary one for "".
func (t *Template) executor(name string) (*registered, error) {
	if name == "" || name == t.primary.e.Name() {
		return t.primary, nil
	}
	r, ok := t.byName[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q (have %s)", ErrUnknownExecutor, name, t.names())
	}
	return r, nil
}

// validKey rejects keys no executor can store faithfully.
func validKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty key", ErrInvalidKey)
	case len(key) > MaxKeyLen:
		return fmt.Errorf("%w: key of %d bytes, longer than %d", ErrInvalidKey, len(key), MaxKeyLen)
	case !utf8.ValidString(key):
		return fmt.Errorf("%w: key %q is not valid UTF-8", ErrInvalidKey, key)
	case strings.IndexByte(key, 0) >= 0:
		return fmt.Errorf("%w: key %q contains NUL", ErrInvalidKey, key)
	}
	return nil
}
