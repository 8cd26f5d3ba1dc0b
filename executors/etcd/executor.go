package etcd

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/lifecycle"
)

// cleanupTimeout bounds one detached round trip that removes a queue entry
// or revokes a lease after the caller's context ended.
const cleanupTimeout = 2 * time.Second

// Executor locks keys in etcd with the layout of etcd's concurrency.Mutex.
// It is safe for concurrent use. Close it when done (see
// [Executor.Close]); the etcd client stays open.
type Executor struct {
	c        *clientv3.Client
	name     string
	priority int
	prefix   string
	// recipeWrites: locks are written as the recipe RWMutex's writers
	// (Options.RWLockLayout).
	recipeWrites bool
	log          *slog.Logger

	// pollAfter backs a new predecessor watch with reads (blockWatch.polled);
	// tests may change it before first use.
	pollAfter []time.Duration

	entryLocks entryLocks
	stream     streamHold  // the watch stream kept open between waits (watchstream.go)
	keyWatches keyWatches  // watches of a key shared by its waiters (keywatch.go)
	renewals   renewStream // the keep-alive stream kept open for renewals (renewstream.go)

	mu       sync.Mutex
	sessions map[int64]*session        // shared keep-alive sessions by TTL in seconds
	pending  map[int64]*pendingSession // grants in flight, by TTL in seconds
	closed   bool

	// life is cancelled by Close; it bounds background round trips. It is
	// the executor's lifetime, never a caller's context.
	life      context.Context
	kill      context.CancelFunc
	closeOnce sync.Once
	closeErr  error
	bg        lifecycle.Group     // keep-alive loops and background clean-ups
	fixed     leases.Held[*lease] // held locks with a grant of their own, for Close
}

var (
	_ executor.Executor      = (*Executor)(nil)
	_ executor.Inspector     = (*Executor)(nil)
	_ executor.ForceReleaser = (*Executor)(nil)
)

// New returns an executor that locks through client. It never dials: the
// client is the caller's, who closes it after [Executor.Close].
func New(client *clientv3.Client, opts Options) (*Executor, error) {
	if client == nil {
		return nil, fmt.Errorf("etcd: nil client: %w", executor.ErrInvalidConfig)
	}
	opts = opts.withDefaults()
	life, kill := context.WithCancel(context.Background())
	return &Executor{
		c:            client,
		name:         opts.Name,
		priority:     opts.Priority,
		prefix:       opts.Prefix,
		recipeWrites: opts.RWLockLayout,
		log:          opts.Logger,
		pollAfter:    defaultPollAfter,
		renewals:     newRenewStream(),
		sessions:     map[int64]*session{},
		pending:      map[int64]*pendingSession{},
		life:         life,
		kill:         kill,
	}, nil
}

// Name implements [executor.Executor].
func (e *Executor) Name() string { return e.name }

// Priority implements [executor.Executor].
func (e *Executor) Priority() int { return e.priority }

// Capabilities implements [executor.Executor]: watchdog locks ride on a
// shared keep-alive session, and the executor has read locks (in the
// layout of etcd's recipes RWMutex) and semaphores (see docs/etcd.md). The
// shortest lease is 1s: etcd counts lease TTLs in whole seconds (and
// raises them to its own minimum, 2s with the default election timeout), so
// a shorter lease would be held on the server longer than the caller asked.
func (e *Executor) Capabilities() executor.Capabilities {
	return executor.Capabilities{SelfRenewing: true, Wait: executor.WaitInAcquire, SharedLocks: true, Semaphores: true, MinTTL: time.Second}
}

// detached returns a context for a clean-up round trip: free of the
// caller's cancellation, bounded by cleanupTimeout and ended by Close.
func (e *Executor) detached() (context.Context, context.CancelFunc) {
	return context.WithTimeout(e.life, cleanupTimeout)
}

// hold hands out l, just acquired: a lock with a grant of its own joins the
// locks Close ends. One acquired while Close ran is released instead.
func (e *Executor) hold(ctx context.Context, l *lease) (executor.Lease, error) {
	if l.ref.grant == nil || e.fixed.Add(l) {
		return l, nil
	}
	e.void(ctx, l.entry, l.rev, l.ref, l.finish)
	return nil, e.closedErr("acquire", l.key)
}

// closedErr reports a call after Close.
func (e *Executor) closedErr(op, key string) error {
	return fmt.Errorf("etcd: %s %q: %w", op, key, executor.ErrClosed)
}

// isClosed reports whether Close has begun.
func (e *Executor) isClosed() bool {
	return e.life.Err() != nil
}
