package redis

import (
	"cmp"
	"fmt"
	"log/slog"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/queued"
	"github.com/lock4go/lock4go/internal/redisnode"
)

// Options configures an [Executor]. The zero value consists entirely of
// defaults; every field says what its zero value means.
type Options struct {
	// Name identifies the executor in a Template. Zero means "redis".
	Name string

	// Priority orders executors when none is chosen explicitly; lower wins.
	// Zero means [Priority].
	Priority int

	// SubscribeTimeout bounds how long [Executor.WatchRelease] waits for the
	// server to confirm a new subscription, so that a release right after
	// WatchRelease returns is not missed. When it passes (pub/sub is slow or
	// down) WatchRelease returns anyway and later calls stop waiting until
	// pub/sub answers again; the Template then polls at its retry interval.
	// Zero means 250ms.
	SubscribeTimeout time.Duration

	// ClaimWindow is how long a released key stays granted to the executor
	// at the head of its wait queue (see [Executor.WatchRelease]): the
	// woken waiter confirms the grant within this window, or the grant
	// lapses, and the next waiter that asks (within a second: its quiet
	// poll) takes the key; the grantee keeps its place in the queue and
	// has the next turn once it runs again, and one that died costs the
	// others this window and that second, once. It should exceed the time
	// a wake-up takes to reach a waiter and its attempt to reach Redis,
	// scheduling delays on a busy machine included. Zero means 200ms.
	ClaimWindow time.Duration

	// StrictFIFO refuses a free key to an attempt while another executor
	// heads the key's wait queue (Redisson's fair lock); the attempt hands
	// the key to that executor instead, and queues. By default an attempt
	// takes a free key even when others are queued (bounded barging: the
	// key is free while others wait only after a lease expired without a
	// release, or a grant lapsed; every release hands it to the longest
	// waiter). Strict costs two more commands inside every acquire script
	// and one claim window per dead waiter at the head, each time a
	// newcomer finds the key free. Executors sharing keys should agree.
	StrictFIFO bool

	// CleanupTimeout bounds each round of voids of attempts whose reply was
	// lost (see [Executor.Acquire]; failed voids are retried), a departure
	// from a wait queue, and a Release whose context has already ended;
	// Close's whole clean-up ends within one CleanupTimeout too. Zero means
	// 2s.
	CleanupTimeout time.Duration

	// Replicas, when positive, makes every attempt wait until that many
	// replicas have acknowledged its write (WAIT, sent right behind the
	// acquire script on the same connection, in the same round trip's
	// pipeline): a lock then survives a failover to one of them. An
	// attempt that took the key but heard from fewer replicas within
	// ReplicaTimeout releases it and fails with [executor.ErrBackend]. It
	// costs the replication delay on every attempt (see docs/redis.md).
	// A Cluster client refuses it ([executor.ErrInvalidConfig]): WAIT has
	// no key to route it by. Zero means no waiting.
	Replicas int

	// ReplicaTimeout bounds the wait for Replicas. Zero means 100ms.
	ReplicaTimeout time.Duration

	// pollEveryRetry makes every retry of a waiter ask the server. By
	// default a waiter whose executor stands in the key's queue, with its
	// wake subscription healthy and no wake since, asks at most once a
	// second and has its other retries answered "busy" without a round
	// trip (a release would have woken it). Only the redlock executor sets
	// it, on its masters (internal/redisnode): a wake from one master must
	// make its retries on every master ask.
	pollEveryRetry bool

	// Logger receives warnings (an evicting maxmemory-policy, a failed
	// void) and debug messages. Nil means [slog.Default].
	Logger *slog.Logger
}

// DefaultCleanupTimeout is the default [Options.CleanupTimeout].
const DefaultCleanupTimeout = queued.DefaultCleanupTimeout

const (
	defaultName           = "redis"
	defaultReplicaTimeout = 100 * time.Millisecond
)

// withDefaults validates o and fills in its zero fields.
func (o Options) withDefaults() (Options, error) {
	t, err := queued.Timing{ClaimWindow: o.ClaimWindow, SubscribeTimeout: o.SubscribeTimeout, CleanupTimeout: o.CleanupTimeout}.
		Check("redis", executor.Duration{Name: "ReplicaTimeout", Value: o.ReplicaTimeout})
	if err != nil {
		return o, err
	}
	o.ClaimWindow, o.SubscribeTimeout, o.CleanupTimeout = t.ClaimWindow, t.SubscribeTimeout, t.CleanupTimeout
	if o.Replicas < 0 {
		return o, fmt.Errorf("redis: Replicas %d is negative: %w", o.Replicas, executor.ErrInvalidConfig)
	}
	o.Name = cmp.Or(o.Name, defaultName)
	o.Priority = cmp.Or(o.Priority, Priority)
	o.ReplicaTimeout = cmp.Or(o.ReplicaTimeout, defaultReplicaTimeout)
	o.Logger = cmp.Or(o.Logger, slog.Default())
	return o, nil
}

// Priority is the executor's default priority ([executor.Executor]): when a
// Template has several executors and none is chosen, the lowest wins. The
// built-in defaults prefer Redis (100), then ZooKeeper (200), etcd (300)
// and memory (400).
const Priority = 100

func init() {
	redisnode.PollEveryRetry = func(e any) { e.(*Executor).opts.pollEveryRetry = true }
}
