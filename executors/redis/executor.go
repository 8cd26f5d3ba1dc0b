package redis

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
)

// Executor is the Redis lock executor. It implements [executor.Executor],
// [executor.Waiter], [executor.BatchRenewer] and [executor.Inspector]. It is
// safe for concurrent use.
type Executor struct {
	client   goredis.UniversalClient
	opts     Options
	log      *slog.Logger
	ctxBound bool // the client bounds its I/O by context deadlines

	counterTTLArg any // CounterTTL in ms, boxed once
	lastTTL       atomic.Pointer[ttlArg]
	hub           *hub

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup // background work: abandoned calls, compensations, the start-up check
}

var (
	_ executor.Executor     = (*Executor)(nil)
	_ executor.Waiter       = (*Executor)(nil)
	_ executor.BatchRenewer = (*Executor)(nil)
	_ executor.Inspector    = (*Executor)(nil)
)

// New returns an executor that locks through client: a *redis.Client, a
// Sentinel failover client or a *redis.ClusterClient. New never constructs or
// closes the client; the caller owns it. It returns an error wrapping
// [executor.ErrInvalidConfig] for a nil client or negative durations.
//
// New checks in the background (best effort, bounded by a short timeout)
// whether the server's maxmemory-policy may evict keys, and logs a warning
// if so: eviction can drop held locks.
//
// For the shortest acquisition path create the client with
// ContextTimeoutEnabled, so that go-redis itself bounds calls by the
// caller's deadline (a cancellation without a deadline is then noticed at
// the client's ReadTimeout at the latest). Without it, each call made with a
// context that can end runs in a short-lived goroutine, so that a stalled
// server cannot hold Acquire, Renew or Release past their context; that
// hand-off costs a few microseconds per call.
func New(client goredis.UniversalClient, opts Options) (*Executor, error) {
	if client == nil {
		return nil, fmt.Errorf("redis: nil client: %w", executor.ErrInvalidConfig)
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	e := &Executor{
		client:        client,
		opts:          opts,
		log:           opts.Logger.With("executor", opts.Name),
		ctxBound:      honoursContext(client),
		counterTTLArg: ms(opts.CounterTTL),
	}
	e.hub = newHub(client, e.log, opts.SubscribeTimeout)
	if !e.ctxBound {
		e.log.Debug("redis: the client does not bound calls by context deadlines (ContextTimeoutEnabled is false); calls with a deadline run in their own goroutine")
	}
	e.spawn(e.checkEviction)
	return e, nil
}

// Name returns the executor's name ("redis" unless configured).
func (e *Executor) Name() string { return e.opts.Name }

// Priority returns the executor's priority ([executor.PriorityRedis] unless
// configured).
func (e *Executor) Priority() int { return e.opts.Priority }

// Close stops the executor's shared pub/sub connection and waits for its
// background work (the start-up check, compensations of lost replies) to
// end. It does not close the client. Leases stay usable after Close;
// WatchRelease then returns channels that never fire. Close is idempotent.
func (e *Executor) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	err := e.hub.close()
	e.wg.Wait()
	return err
}

// isNil reports whether err is the nil reply of go-redis.
func isNil(err error) bool { return errors.Is(err, goredis.Nil) }
