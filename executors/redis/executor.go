package redis

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/lifecycle"
	"github.com/lock4go/lock4go/internal/queued"
)

// Executor is the Redis lock executor. It implements [executor.Executor],
// [executor.Waiter], [executor.BatchRenewer], [executor.Inspector] and
// [executor.ForceReleaser]. It is safe for concurrent use. Close it when
// done (see [Executor.Close]).
type Executor struct {
	client   goredis.UniversalClient
	opts     Options
	log      *slog.Logger
	ctxBound bool // the client bounds its I/O by context deadlines
	// oneAttempt: the client never retries, so a failed dial proves that a
	// call sent nothing.
	oneAttempt bool

	lastTTL atomic.Pointer[ttlArg]
	hub     *hub // the wake subscription on classic channels
	// sharded: a Cluster client, whose wakes go on sharded channels, one
	// per slot (shards) instead of hub.
	sharded bool
	shards  *shardHubs

	// The executor in wait queues: its member name, boxed once, the channel
	// releases wake it on, and what its callers wait for.
	member      string
	wakeChannel string
	grantBase   string // claimPrefix, member and a NUL: a grant's value before its token
	claimArg    any    // ClaimWindow in ms, boxed once
	queueTTLArg any    // queued.QueueTTL (or the claim window) in ms, boxed once
	waits       waits

	// core holds the leases held, the voids of lost replies, the
	// background work (workers, voids, departures, the start-up check) and
	// Close.
	core *queued.Core[*lease]

	// The workers of run: mu guards closed (Close began: no more
	// hand-offs) and idle (the parked ones, the last parked on top).
	mu     sync.Mutex
	closed bool
	idle   []*worker
}

var (
	_ executor.Executor      = (*Executor)(nil)
	_ executor.Waiter        = (*Executor)(nil)
	_ executor.BatchRenewer  = (*Executor)(nil)
	_ executor.Inspector     = (*Executor)(nil)
	_ executor.ForceReleaser = (*Executor)(nil)
)

// New returns an executor that locks through client: a *redis.Client, a
// Sentinel failover client or a *redis.ClusterClient. New never constructs or
// closes the client; the caller owns it. It returns an error wrapping
// [executor.ErrInvalidConfig] for a nil client (a nil interface or a typed
// nil such as (*redis.Client)(nil)), a *redis.Ring or negative durations. A Ring is refused because its pub/sub is per shard: a release
// published on the key's shard would not reach waiters subscribed on
// another, and a Ring cannot even open a subscription without a channel.
//
// New checks in the background (best effort, bounded by a short timeout)
// whether the server's maxmemory-policy may evict keys, and logs a warning
// if so: eviction can drop held locks.
//
// go-redis logs every failed dial itself, on its own process-wide logger
// (the standard library's log, to stderr): "redis: connection pool: failed
// to dial after 5 attempts: …", about 16 lines during one Lock with the
// default Config while Redis refuses connections. Silence it with
// goredis.SetLogger(&logging.VoidLogger{}) (package
// github.com/redis/go-redis/v9/logging), or route it by passing SetLogger a
// value whose Printf(ctx, format, args...) writes to your logger. The
// executor's own messages go to [Options.Logger].
//
// Create the client with ContextTimeoutEnabled: go-redis then bounds each
// call by its context's deadline, and the executor calls Redis in the
// caller's goroutine. Without it go-redis ignores deadlines (a call waits for
// ReadTimeout, and its retries), so the executor hands every call whose
// context can end to one of its worker goroutines and returns when the
// context ends; that hand-off costs a scheduler round trip per call, which
// makes an uncontended Lock+Release markedly slower. go-redis notices deadlines, never
// cancellations: with ContextTimeoutEnabled, a call whose context is
// cancelled before its deadline returns when Redis answers, or at the
// deadline if Redis stalls, and a call whose context can be cancelled but
// has no deadline takes a worker too.
func New(client goredis.UniversalClient, opts Options) (*Executor, error) {
	if lifecycle.IsNil(client) {
		return nil, fmt.Errorf("redis: nil client: %w", executor.ErrInvalidConfig)
	}
	if _, ok := client.(*goredis.Ring); ok {
		return nil, fmt.Errorf("redis: *redis.Ring is not supported (pub/sub per shard); use a Client or ClusterClient: %w", executor.ErrInvalidConfig)
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if _, ok := client.(*goredis.ClusterClient); ok && opts.Replicas > 0 {
		return nil, fmt.Errorf("redis: Replicas with a *redis.ClusterClient (WAIT has no key to route it by): %w", executor.ErrInvalidConfig)
	}
	e := &Executor{
		client:      client,
		opts:        opts,
		log:         opts.Logger.With("executor", opts.Name),
		ctxBound:    honoursContext(client),
		oneAttempt:  makesOneAttempt(client),
		claimArg:    leases.Millis(opts.ClaimWindow),
		queueTTLArg: leases.Millis(max(queued.QueueTTL, opts.ClaimWindow)),
		member:      queued.NewMember(),
	}
	e.wakeChannel = wakeChannelPrefix + e.member
	e.grantBase = claimPrefix + e.member + "\x00"
	e.hub = newHub(classicWire(client), e.log, opts.SubscribeTimeout, func() bool { return e.waits.Active() })
	if cluster, ok := client.(*goredis.ClusterClient); ok {
		e.sharded = true
		e.shards = newShardHubs(cluster, e.log, opts.SubscribeTimeout, e.member)
	}
	if !e.ctxBound {
		e.log.Debug("redis: the client does not bound calls by context deadlines (ContextTimeoutEnabled is false); calls whose context can end are handed to worker goroutines")
	}
	e.core = e.newCore()
	e.core.Go(e.checkEviction)
	return e, nil
}

// Name returns the executor's name ("redis" unless configured).
func (e *Executor) Name() string { return e.opts.Name }

// Priority returns the executor's priority ([Priority] unless
// configured).
func (e *Executor) Priority() int { return e.opts.Priority }

// Capabilities implements [executor.Executor]: the Template's watchdog
// renews Redis locks, waiters queue on the server (see
// [Executor.WatchRelease]), and the executor has read locks and semaphores
// (see docs/redis.md, "Read locks and permits").
func (e *Executor) Capabilities() executor.Capabilities {
	return executor.Capabilities{Wait: executor.WaitQueued, SharedLocks: true, Semaphores: true}
}

// isNil reports whether err is the nil reply of go-redis.
func isNil(err error) bool { return errors.Is(err, goredis.Nil) }

// evictionCheckTimeout bounds the start-up check of maxmemory-policy.
const evictionCheckTimeout = 2 * time.Second

// checkEviction warns when the server's maxmemory-policy may evict keys,
// which would silently drop held locks. Servers that refuse CONFIG (managed
// services, ACLs) are skipped with a debug message.
func (e *Executor) checkEviction() {
	ctx, cancel := context.WithTimeout(context.Background(), evictionCheckTimeout)
	defer cancel()
	policy, err := e.client.ConfigGet(ctx, "maxmemory-policy").Result()
	if err != nil {
		e.log.Debug("redis: cannot read maxmemory-policy; eviction check skipped", "err", err)
		return
	}
	e.warnIfEvicting(policy["maxmemory-policy"])
}

// warnIfEvicting logs a warning when policy lets Redis evict lock keys.
func (e *Executor) warnIfEvicting(policy string) {
	if evicting(policy) {
		e.log.Warn("redis: maxmemory-policy evicts keys; under memory pressure held locks can be dropped and taken by another owner; use noeviction on lock servers",
			"maxmemory-policy", policy)
	}
}

// evicting reports whether a maxmemory-policy may evict lock keys: every
// allkeys-* policy, and volatile-* ones since lock keys carry a TTL.
func evicting(policy string) bool {
	return strings.HasPrefix(policy, "allkeys-") || strings.HasPrefix(policy, "volatile-")
}
