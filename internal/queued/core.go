package queued

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/lifecycle"
)

// Lease is what the core needs of an executor's lease: the key it locks
// (for errors and logs) and its loss, which [Core.Close] marks. The
// executor's lease type is a pointer, so that leases compare by identity.
type Lease interface {
	comparable
	// Key returns the lock key.
	Key() string
	// Loss returns the lease's loss: Close records it with a cause
	// wrapping [executor.ErrClosed].
	Loss() *leases.Loss
}

// Statements are the round trips a queued executor fills in. Each is
// bounded by its ctx and returns only the errors of the round trip itself:
// a lease that is no longer held, or a queue the executor no longer stands
// in, is done, not an error.
type Statements[L Lease] struct {
	// Void runs the void of every item (see [Core.VoidLater]) and returns
	// one error per item, nil for a void done. ctx bounds the whole round:
	// a backend that sends one statement per item sends none once ctx has
	// ended, and reports ctx's error for those.
	Void func(ctx context.Context, voids []Void[L]) []error
	// Release releases l by owner, handing the key to the head of its
	// queue: for the leases Close ends, and for a lease taken after Close
	// began ([Core.Add]).
	Release func(ctx context.Context, l L) error
	// Leave removes the executor from key's wait queue.
	Leave func(ctx context.Context, key string) error
}

// Config is what [New] needs. Every field is required.
type Config[L Lease] struct {
	// Prefix starts every error and log message: the executor's package
	// name ("redis", "postgres"), not its configured Name.
	Prefix string
	// Log receives the core's warnings and debug messages.
	Log *slog.Logger
	// CleanupTimeout bounds each clean-up round trip (a round of voids, a
	// departure from a queue, a release whose caller's context ended), and
	// Close's clean-up as a whole.
	CleanupTimeout time.Duration
	// MaxKeyLen, when positive, is the longest key the backend stores
	// faithfully, in bytes ([Core.CheckKey]).
	MaxKeyLen int
	// Waits are the executor's waits, which Close wakes and whose queues
	// it leaves.
	Waits *Waits
	// Statements are the executor's round trips.
	Statements Statements[L]
}

// Core is the shared part of a queued executor: its held leases, its void
// queue, its background work and its Close. Make it with [New]. It is safe
// for concurrent use.
type Core[L Lease] struct {
	prefix  string
	log     *slog.Logger
	cleanup time.Duration
	maxKey  int
	waits   *Waits
	st      Statements[L]
	// closedHeld is the loss cause of a lease held when Close began.
	closedHeld error

	held  leases.Held[L]  // the leases held, for Close
	voids voidQueue[L]    // voids of lost replies
	bg    lifecycle.Group // background work: voids, departures, the executor's own

	mu     sync.Mutex
	closed bool
	// life is cancelled when Close begins: the executor's lifetime, never
	// a caller's context.
	life context.Context
	kill context.CancelFunc
	// closeBy is when Close's clean-up must end: CleanupTimeout after Close
	// began. Set before life is cancelled.
	closeBy leases.Instant
}

// New returns the core of an executor configured by cfg.
func New[L Lease](cfg Config[L]) *Core[L] {
	c := &Core[L]{
		prefix:  cfg.Prefix,
		log:     cfg.Log,
		cleanup: cfg.CleanupTimeout,
		maxKey:  cfg.MaxKeyLen,
		waits:   cfg.Waits,
		st:      cfg.Statements,
		closedHeld: fmt.Errorf("%s: the lock was held when the executor closed, and Close released it: %w",
			cfg.Prefix, executor.ErrClosed),
	}
	c.life, c.kill = context.WithCancel(context.Background())
	return c
}

// Closed reports whether Close has begun: every call that takes a key
// checks it first.
func (c *Core[L]) Closed() bool { return c.life.Err() != nil }

// Life returns a context that ends when Close begins, for the executor's
// background loops (a wake-up connection, a sweeper). It is the executor's
// lifetime, never a caller's.
func (c *Core[L]) Life() context.Context { return c.life }

// Go runs f in a goroutine that Close waits for. It reports false, without
// running f, once Close has begun. f must return soon after [Core.Life]
// ends.
func (c *Core[L]) Go(f func()) bool { return c.bg.Go(f) }

// Cleanup returns the context of a clean-up round trip that starts now: free
// of any caller's cancellation, ending CleanupTimeout from now, or at
// Close's clean-up deadline when Close has begun and that is sooner (it may
// have passed: the context has then ended). So every round trip of the
// background work ends by Close's deadline, and Close returns within about
// one CleanupTimeout however many are pending.
func (c *Core[L]) Cleanup() (context.Context, context.CancelFunc) {
	deadline := time.Now().Add(c.cleanup)
	if by := c.closeBy.Load(); c.Closed() && by.Before(deadline) {
		deadline = by
	}
	return context.WithDeadline(context.Background(), deadline)
}

// ReleaseContext returns ctx, or, when ctx has already ended, a context
// with its values, free of its cancellation and ending CleanupTimeout from
// now: a lock is released even by a caller whose request was cancelled.
func (c *Core[L]) ReleaseContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil {
		return ctx, noCancel
	}
	return context.WithTimeout(context.WithoutCancel(ctx), c.cleanup)
}

// noCancel is the cancel function of a context returned as it was given.
// A function literal would do the same, but in a generic method it captures
// the instantiation's dictionary: an allocation per call.
func noCancel() {}

// Timing of the queues, the same on every queued executor.
const (
	// QueueTTL is the life of a queue entry after its waiter's last
	// attempt: live waiters refresh it at every attempt (at least every
	// retry interval), dead ones leave it to expire.
	QueueTTL = 30 * time.Second
	// QuietPoll is how often a waiter that stands in a key's queue, with
	// its wake-up channel healthy and no wake since, asks the backend; its
	// other retries are answered "busy" without a round trip (see
	// [Waits.Quiet]).
	QuietPoll = time.Second
)

// NewMember returns a random name for an executor in wait queues.
func NewMember() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}
