package redlock

import (
	"cmp"
	"log/slog"
	"time"

	"github.com/lock4go/lock4go/executors/redis"
)

// Priority is the default priority of a Redlock executor: after the Redis
// executor, since a quorum lock costs N masters' work for one lock.
const Priority = 150

// Defaults of [Options].
const (
	// DefaultDriftFactor is the share of the TTL taken off a lease's
	// validity for clock drift between this process and the masters:
	// Redlock's 1%.
	DefaultDriftFactor = 0.01
	// DefaultMinDrift is added to the drift for the precision of Redis
	// expiries (a millisecond) and timer slack.
	DefaultMinDrift = 2 * time.Millisecond
	// DefaultNodeTimeout is the default [Options.NodeTimeout].
	DefaultNodeTimeout = 100 * time.Millisecond
)

// Options configures an [Executor]. The zero value consists entirely of
// defaults; every field says what its zero value means.
type Options struct {
	// Name identifies the executor in a Template. Zero means "redlock".
	Name string

	// Priority orders executors when none is chosen explicitly; lower wins.
	// Zero means [Priority].
	Priority int

	// DriftFactor is the share of the TTL by which the clock of this process
	// and the masters' clocks may run at different rates over a lease. The
	// validity of a lease is TTL - elapsed - (TTL*DriftFactor + MinDrift),
	// where elapsed is the time the acquisition took by the local monotonic
	// clock. Zero means [DefaultDriftFactor]; it must be below 0.5.
	DriftFactor float64

	// MinDrift is the floor added to the drift of every lease. Zero means
	// [DefaultMinDrift].
	MinDrift time.Duration

	// NodeTimeout is how long an acquisition that met another owner (a
	// master said the key is busy) waits for masters that have not
	// answered: after it the attempt fails with ErrNotAcquired (its late
	// grants are released when they come) and those masters are suspect
	// until they answer again; later contended attempts do not wait for
	// suspect masters at all. Redlock prescribes a per-master timeout well
	// below the TTL so that a dead master does not hold up every attempt;
	// here it applies under contention only, where holding grants while
	// waiting would make the other waiters fail too (and two waiters that
	// split the live masters would collide at every attempt). An attempt
	// that met nobody waits for slow masters as long as its context
	// allows. Zero means [DefaultNodeTimeout].
	NodeTimeout time.Duration

	// Node configures the Redis executor of each master (its claim window,
	// strict FIFO, clean-up timeout, replicas). Its Name and Priority are
	// ignored, and every retry of a waiter asks each master (a wake from one
	// master must reach every master's attempt); its Logger defaults to
	// Logger.
	Node redis.Options

	// Logger receives warnings (a compensation that failed) and debug
	// messages. Nil means [slog.Default].
	Logger *slog.Logger
}

// withDefaults returns o with its zero fields set to their defaults.
func (o Options) withDefaults() Options {
	o.Name = cmp.Or(o.Name, "redlock")
	o.Priority = cmp.Or(o.Priority, Priority)
	o.DriftFactor = cmp.Or(o.DriftFactor, DefaultDriftFactor)
	o.MinDrift = cmp.Or(o.MinDrift, DefaultMinDrift)
	o.NodeTimeout = cmp.Or(o.NodeTimeout, DefaultNodeTimeout)
	o.Logger = cmp.Or(o.Logger, slog.Default())
	o.Node.CleanupTimeout = cmp.Or(o.Node.CleanupTimeout, redis.DefaultCleanupTimeout)
	if o.Node.Logger == nil {
		o.Node.Logger = o.Logger
	}
	return o
}

// drift returns the drift of a lease of length ttl.
func (o Options) drift(ttl time.Duration) time.Duration {
	return time.Duration(float64(ttl)*o.DriftFactor) + o.MinDrift
}

// shortestTTL returns the shortest whole number of milliseconds whose drift
// is shorter than itself: the shortest lease with any validity.
func (o Options) shortestTTL() time.Duration {
	ttl := o.MinDrift.Truncate(time.Millisecond) + time.Millisecond
	for o.drift(ttl) >= ttl {
		ttl += time.Millisecond
	}
	return ttl
}
