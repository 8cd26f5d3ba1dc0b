package redlock

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/lifecycle"
	"github.com/lock4go/lock4go/internal/redisnode"
)

// Executor is the Redlock executor: one lock over N independent Redis
// masters, held while a majority of them holds it. It implements
// executor.Executor, executor.Waiter, executor.BatchRenewer,
// executor.Inspector and executor.ForceReleaser. It is safe for concurrent
// use. Close it when done (see [Executor.Close]).
type Executor struct {
	opts   Options
	nodes  []*redis.Executor
	quorum int
	bg     lifecycle.Group // stragglers of acquisitions, compensations
	work   workers         // round trips to the masters
	splits splits
	// suspect marks the masters whose last acquire round trip did not
	// answer within NodeTimeout (or failed): an acquisition does not wait
	// for them when the others already decide it. Any answer clears it.
	suspect []atomic.Bool
	// probeAt is, per master, when a suspect master may next be asked for
	// a lease by a repair (unix ns): at most one such probe per
	// suspectProbe, so that a dead master does not collect a void per
	// lease per renewal.
	probeAt []atomic.Int64

	held  leases.Held[*lease] // the leases held, for Close
	done  chan struct{}       // closed when Close begins
	close sync.Once
	err   error
}

var _ executor.Executor = (*Executor)(nil)

// New returns a Redlock executor over clients, one per independent Redis
// master (at least three; an odd number is recommended, see the package
// documentation). Each client gets a Redis executor of its own, configured
// by opts.Node; New never constructs or closes the clients, the caller owns
// them. Create them with ContextTimeoutEnabled, as for the Redis executor.
//
// It returns an error wrapping executor.ErrInvalidConfig for fewer than
// three clients, a nil client (a typed nil too) or a repeated one, a
// client the Redis executor refuses (a Ring), a DriftFactor outside [0, 0.5), a negative MinDrift or
// NodeTimeout.
func New(clients []goredis.UniversalClient, opts Options) (*Executor, error) {
	if len(clients) < 3 {
		return nil, fmt.Errorf("redlock: %d masters, need at least 3: %w", len(clients), executor.ErrInvalidConfig)
	}
	if opts.DriftFactor < 0 || opts.DriftFactor >= 0.5 {
		return nil, fmt.Errorf("redlock: drift factor %v outside [0, 0.5): %w", opts.DriftFactor, executor.ErrInvalidConfig)
	}
	if opts.MinDrift < 0 {
		return nil, fmt.Errorf("redlock: negative minimum drift %v: %w", opts.MinDrift, executor.ErrInvalidConfig)
	}
	if opts.NodeTimeout < 0 {
		return nil, fmt.Errorf("redlock: negative node timeout %v: %w", opts.NodeTimeout, executor.ErrInvalidConfig)
	}
	seen := make(map[goredis.UniversalClient]bool, len(clients))
	for i, c := range clients {
		if lifecycle.IsNil(c) {
			return nil, fmt.Errorf("redlock: master %d: nil client: %w", i, executor.ErrInvalidConfig)
		}
		if seen[c] {
			return nil, fmt.Errorf("redlock: master %d: the same client twice (the masters must be independent): %w", i, executor.ErrInvalidConfig)
		}
		seen[c] = true
	}
	opts = opts.withDefaults()
	e := &Executor{opts: opts, quorum: len(clients)/2 + 1, suspect: make([]atomic.Bool, len(clients)),
		probeAt: make([]atomic.Int64, len(clients)), done: make(chan struct{})}
	for i, c := range clients {
		no := opts.Node
		no.Name = fmt.Sprintf("%s/%d", opts.Name, i)
		n, err := redis.New(c, no)
		if err != nil {
			_ = e.Close()
			return nil, fmt.Errorf("redlock: master %d: %w", i, err)
		}
		redisnode.PollEveryRetry(n) // a wake from one master must reach every master's attempt
		e.nodes = append(e.nodes, n)
	}
	return e, nil
}

// Name returns the executor's name ("redlock" unless configured).
func (e *Executor) Name() string { return e.opts.Name }

// Priority returns the executor's priority ([Priority] unless configured).
func (e *Executor) Priority() int { return e.opts.Priority }

// Capabilities implements executor.Executor: the Template's watchdog renews
// the locks (a quorum of masters per renewal). Waiters queue on each master
// (see [Executor.WatchRelease]) but a wake from one master does not mean
// the lock can be taken on a quorum, so it polls ([executor.WaitPolling]):
// the Template tries again once more after WatchRelease. There are no read locks or
// semaphores. The shortest lease is the shortest whole number of
// milliseconds (Redis's unit) longer than its own drift (Options.MinDrift
// plus DriftFactor of the lease): a lease no longer than its drift leaves
// no validity (3ms with the defaults).
func (e *Executor) Capabilities() executor.Capabilities {
	return executor.Capabilities{MinTTL: e.opts.shortestTTL()}
}

// Masters returns the number of masters.
func (e *Executor) Masters() int { return len(e.nodes) }

// Quorum returns the number of masters that must hold a lock: a majority.
func (e *Executor) Quorum() int { return e.quorum }

// suspectProbe is how often a repair may probe a suspect master.
const suspectProbe = time.Second

// mayAsk reports whether a repair may ask master i for a lease now: it is
// not suspect, or no probe of it was made within suspectProbe.
func (e *Executor) mayAsk(i int) bool {
	if !e.suspect[i].Load() {
		return true
	}
	now := time.Now().UnixNano()
	next := e.probeAt[i].Load()
	return now >= next && e.probeAt[i].CompareAndSwap(next, now+int64(suspectProbe))
}

// cleanupContext returns a context for releases that must happen whatever
// the caller's context says, bounded by the masters' clean-up timeout.
func (e *Executor) cleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), e.opts.Node.CleanupTimeout)
}

// detach returns a context for round trips that may outlive the call that
// started them: ctx's deadline but not its cancellation. When ctx has no
// deadline the round trips get fallback, or the clean-up timeout when
// fallback is zero or ctx has already ended.
func (e *Executor) detach(ctx context.Context, fallback time.Duration) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil {
		if d, ok := ctx.Deadline(); ok {
			return context.WithDeadline(context.WithoutCancel(ctx), d)
		}
		if fallback > 0 {
			return context.WithTimeout(context.WithoutCancel(ctx), fallback)
		}
	}
	return e.cleanupContext(ctx)
}

// each runs f(i) for i in [0, n) in the executor's workers and waits for
// all.
func (e *Executor) each(n int, f func(i int)) {
	if n == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	wg.Add(n)
	for i := range n {
		e.work.run(func() {
			defer wg.Done()
			f(i)
		})
	}
	wg.Wait()
}
