package lock4go

import (
	"cmp"
	"fmt"
	"log/slog"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// Defaults of [Config], the same as Lock4j's.
const (
	DefaultExpire         = 30 * time.Second
	DefaultAcquireTimeout = 3 * time.Second
	DefaultRetryInterval  = 100 * time.Millisecond
	DefaultKeyPrefix      = "lock4go"
	DefaultReleaseTimeout = 3 * time.Second
	DefaultAttemptGrace   = 2 * time.Second
)

// MaxKeyLen is the longest key, in bytes, that a Template accepts. Key
// builders hash longer keys to stay below it.
const MaxKeyLen = 1024

// Config holds a Template's settings, mirroring Lock4j's properties. The zero
// value consists entirely of the documented defaults.
type Config struct {
	// Expire is the lease of a lock taken without [WithExpire]; the watchdog
	// renews it every third of it until release. Zero means 30s. Shorter
	// than an executor's shortest lease (1ms; 1s on etcd:
	// executor.Capabilities.MinTTL) is [ErrInvalidConfig] from [New].
	Expire time.Duration

	// AcquireTimeout bounds how long Lock waits for a busy key. Zero means 3s.
	AcquireTimeout time.Duration

	// AttemptGrace is how long an attempt already sent when the acquire
	// timeout passes may still take: its answer counts (a grant is a held
	// lock, a busy key is ErrNotAcquired), as in Lock4j and Redisson, whose
	// acquire timeout bounds the waiting, not a request in flight. Only an
	// attempt still unanswered at the acquire timeout plus AttemptGrace is
	// ErrBackend. It also bounds the single attempt of TryLock and
	// [NoWait]. The caller's own context still ends everything at
	// once. Zero means 2s: above the slowest healthy first attempt
	// (connect plus acquire) measured on a heavily loaded machine, and about
	// a Redis client's own command timeout, the bound Lock4j and Redisson
	// rely on. An attempt on a context that never ends may be cut up to
	// 1/256 of AttemptGrace (at most 10ms) sooner: such attempts share
	// their bounding context with those ending at nearly the same instant.
	AttemptGrace time.Duration

	// RetryInterval is the pause between attempts on a busy key. Executors
	// that report releases wake waiters sooner. Zero means 100ms.
	RetryInterval time.Duration

	// KeyPrefix starts every key built by key builders and middleware
	// ("<KeyPrefix>:<name>#<parts>"); Template.Lock uses keys as given. Zero
	// means "lock4go". Use "lock4j" to share locks with Java Lock4j services.
	KeyPrefix string

	// Primary names the executor used when a call does not pick one. Zero
	// means the executor with the lowest Priority.
	Primary string

	// ReleaseTimeout bounds a release, which runs on a context detached from
	// the caller's (with its values) so that it works after cancellation.
	// A release may be cut up to 1/256 of ReleaseTimeout (at most 10ms)
	// sooner: releases share their bounding context with those ending at
	// nearly the same instant. Zero means 3s.
	ReleaseTimeout time.Duration

	// Logger receives lost-lock and release-failure records. Nil means
	// slog.Default().
	Logger *slog.Logger

	// Observer is told of acquisitions, failures, releases and losses. Nil
	// means none.
	Observer Observer
}

// withDefaults fills zero fields and rejects negative durations.
func (c Config) withDefaults() (Config, error) {
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"Expire", &c.Expire, DefaultExpire},
		{"AcquireTimeout", &c.AcquireTimeout, DefaultAcquireTimeout},
		{"RetryInterval", &c.RetryInterval, DefaultRetryInterval},
		{"ReleaseTimeout", &c.ReleaseTimeout, DefaultReleaseTimeout},
		{"AttemptGrace", &c.AttemptGrace, DefaultAttemptGrace},
	} {
		if *d.v < 0 {
			return c, fmt.Errorf("%w: Config.%s is negative (%v)", ErrInvalidConfig, d.name, *d.v)
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if c.KeyPrefix == "" {
		c.KeyPrefix = DefaultKeyPrefix
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Observer == nil {
		c.Observer = nopObserver{}
	}
	return c, nil
}

// LockOption adjusts one Lock, TryLock or Do call. Options are plain values:
// applying them allocates nothing. As in [Config], a zero argument means
// the Template's default and a negative one is [ErrInvalidConfig] (see
// "Zero values" in the package documentation).
type LockOption struct {
	kind optKind
	d    time.Duration
	s    string
}

type optKind uint8

const (
	optNone optKind = iota
	optExpire
	optAcquireTimeout
	optNoWait
	optRetryInterval
	optExecutor
	optAttemptGrace
	optShared
	optPermits
	optCampaign // Lead: wait without a timeout, whatever the caller asked
	optLease    // WithLease: a renewed lease of its own length
)

type lockOptions struct {
	expire         time.Duration
	expireSet      bool
	acquireTimeout time.Duration
	noWait         bool
	retryInterval  time.Duration
	attemptGrace   time.Duration
	executor       string
	shared         bool
	permits        int
}

// WithExpire gives the lock a fixed lease d that is not renewed (Lock4j's
// expire): the lock ends d after it was taken even if not released, and
// [Lock.Done] reports it lost then. Zero means the default, the
// Template's Expire renewed by the watchdog until release; negative, or
// shorter than the executor's shortest lease (1ms; 1s on etcd:
// executor.Capabilities.MinTTL), is [ErrInvalidConfig] when the call is
// made, before any attempt.
func WithExpire(d time.Duration) LockOption { return LockOption{kind: optExpire, d: d} }

// WithAcquireTimeout bounds the wait for a busy key. Zero means the
// Template's AcquireTimeout; negative is [ErrInvalidConfig]. For a single
// attempt without waiting, use [NoWait].
func WithAcquireTimeout(d time.Duration) LockOption {
	return LockOption{kind: optAcquireTimeout, d: d}
}

// NoWait makes a single attempt: a busy key is an [*AcquireError] wrapping
// [ErrNotAcquired] at once, whatever the acquire timeout. The attempt is
// bounded by the attempt grace ([Config.AttemptGrace]).
// [Template.TryLock] is Lock with NoWait.
func NoWait() LockOption { return LockOption{kind: optNoWait} }

// WithRetryInterval sets the pause between attempts. Zero means the
// Template's RetryInterval; negative is [ErrInvalidConfig].
func WithRetryInterval(d time.Duration) LockOption {
	return LockOption{kind: optRetryInterval, d: d}
}

// WithAttemptGrace sets, for this call, how long an attempt in flight when
// the acquire timeout passes may still take before it counts as a backend
// failure (see [Config.AttemptGrace]). Zero means the Template's;
// negative is [ErrInvalidConfig].
func WithAttemptGrace(d time.Duration) LockOption {
	return LockOption{kind: optAttemptGrace, d: d}
}

// Shared makes the lock a read lock of the key: readers exclude only
// writers, and a Lock without Shared is the key's write lock (the same as a
// mutex on the key). Once a writer waits, readers that come later wait
// behind it, so writers are not starved. Inside a write lock of the key
// (a context from Do or Lock.Context) a read lock re-enters it; a write
// lock inside a read lock is an upgrade, refused with [ErrInvalidConfig]
// rather than left to deadlock. Each read lock has its own lease, token and
// lost signal. The executor must support read locks
// (executor.Capabilities.SharedLocks), else [ErrInvalidConfig].
func Shared() LockOption { return LockOption{kind: optShared} }

// WithPermits makes the lock one of n permits of a semaphore on the key:
// at most n holders at once, each with its own lease (renewed by the
// watchdog or fixed, like any lock), lost signal and fencing token, strictly
// increasing per key. All users of a key must agree on n: an executor that
// sees another n in use, or the key used as a lock, returns an error
// wrapping [ErrInvalidConfig]. Zero means the default, no semaphore (a
// plain lock); negative, or positive with [Shared], is [ErrInvalidConfig]. Inside a permit of the key (a context from Do or
// Lock.Context) a call re-enters that permit instead of taking another.
// The executor must support semaphores
// (executor.Capabilities.Semaphores), else [ErrInvalidConfig].
func WithPermits(n int) LockOption { return LockOption{kind: optPermits, d: time.Duration(n)} }

// WithExecutor picks the executor by name for this call. The empty name
// means the Template's primary executor.
func WithExecutor(name string) LockOption { return LockOption{kind: optExecutor, s: name} }

// resolve applies opts over the Template's config and validates them: zero
// arguments keep the config's value, negative ones are refused.
func (c *Config) resolve(opts []LockOption) (lockOptions, error) {
	o := lockOptions{
		expire:         c.Expire,
		acquireTimeout: c.AcquireTimeout,
		retryInterval:  c.RetryInterval,
		attemptGrace:   c.AttemptGrace,
		executor:       c.Primary,
	}
	for _, opt := range opts {
		if opt.d < 0 {
			return o, fmt.Errorf("%w: %s is negative (%v)", ErrInvalidConfig, opt.kind, opt.value())
		}
		switch opt.kind {
		case optExpire:
			if opt.d > 0 {
				o.expire, o.expireSet = opt.d, true
			}
		case optLease:
			if opt.d > 0 {
				o.expire, o.expireSet = opt.d, false
			}
		case optAcquireTimeout:
			o.acquireTimeout = cmp.Or(opt.d, c.AcquireTimeout)
		case optNoWait:
			o.noWait = true
		case optCampaign:
			o.acquireTimeout, o.noWait = opt.d, false
		case optRetryInterval:
			o.retryInterval = cmp.Or(opt.d, c.RetryInterval)
		case optExecutor:
			o.executor = cmp.Or(opt.s, c.Primary)
		case optAttemptGrace:
			o.attemptGrace = cmp.Or(opt.d, c.AttemptGrace)
		case optShared:
			o.shared = true
		case optPermits:
			o.permits = int(opt.d)
		}
	}
	if o.shared && o.permits > 0 {
		return o, fmt.Errorf("%w: Shared and WithPermits together: a semaphore has no read locks", ErrInvalidConfig)
	}
	return o, nil
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
	if name == "" || name == t.primary.name {
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
	if err := executor.ValidateKey(key, MaxKeyLen); err != nil {
		return fmt.Errorf("lock4go: %w", err)
	}
	return nil
}

// kind names a lock's kind in errors.
func kindName(shared bool, permits int) string {
	switch {
	case permits > 0:
		return fmt.Sprintf("a semaphore of %d permits", permits)
	case shared:
		return "a read lock"
	}
	return "a write lock"
}

// reentrant checks that a call with options o may re-enter h, which its
// context carries: a read or write lock inside a write lock, a read lock
// inside a read lock, a permit inside a permit of the same semaphore. A
// write lock inside a read lock would be an upgrade, which waits for every
// reader, itself included: refused, never a deadlock.
func (h *hold) reentrant(o lockOptions) error {
	switch {
	case h.permits != o.permits:
		return fmt.Errorf("%w: %q is held as %s in this context, asked as %s",
			ErrInvalidConfig, h.key, kindName(h.shared, h.permits), kindName(o.shared, o.permits))
	case h.shared && !o.shared:
		return fmt.Errorf("%w: %q: a write lock inside a read lock of the same key (an upgrade) would wait for itself; take the write lock first",
			ErrInvalidConfig, h.key)
	}
	return nil
}

// supports checks that r's executor implements the kind o asks for and
// grants a lease as short as o's.
func (r *registered) supports(o lockOptions) error {
	switch {
	case o.shared && !r.caps.SharedLocks:
		return fmt.Errorf("%w: executor %q has no read locks", ErrInvalidConfig, r.name)
	case o.permits > 0 && !r.caps.Semaphores:
		return fmt.Errorf("%w: executor %q has no semaphores", ErrInvalidConfig, r.name)
	}
	return r.grants(o.expire)
}

// grants checks that r's executor grants a lease of ttl
// (executor.Capabilities.CheckTTL): a shorter one is refused when the call
// is made, not tried until the acquire timeout.
func (r *registered) grants(ttl time.Duration) error {
	if err := r.caps.CheckTTL(ttl); err != nil {
		return fmt.Errorf("lock4go: executor %q: %w", r.name, err)
	}
	return nil
}

// String names the option in errors.
func (k optKind) String() string {
	switch k {
	case optExpire:
		return "WithExpire"
	case optAcquireTimeout:
		return "WithAcquireTimeout"
	case optRetryInterval:
		return "WithRetryInterval"
	case optAttemptGrace:
		return "WithAttemptGrace"
	case optPermits:
		return "WithPermits"
	case optLease:
		return "WithLease"
	}
	return "an option"
}

// value returns the option's argument as given, for errors.
func (o LockOption) value() any {
	if o.kind == optPermits {
		return int(o.d)
	}
	return o.d
}
