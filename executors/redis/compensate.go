package redis

import (
	"context"
	"sync"
	"time"

	"github.com/lock4go/lock4go/internal/kit"
	goredis "github.com/redis/go-redis/v9"
)

// Bounds of the compensations, see [Executor.compensate].
const (
	// minVoidTTL is the shortest life of a void marker: long enough for a
	// delayed command (TCP retransmissions, a stalled server) to find it.
	minVoidTTL = 30 * time.Second
	// Backoff between rounds of failed compensations: doubled from the
	// first to the last value.
	voidBackoffMin = 50 * time.Millisecond
	voidBackoffMax = 2 * time.Second
	// voidBatch bounds the compensations sent in one pipeline, so that a
	// backlog built up while Redis was down comes back in parts.
	voidBatch = 256
)

// voidItem is one pending compensation.
type voidItem struct {
	l        *lease
	ttlArg   any       // the void marker's life in ms, boxed
	giveUp   time.Time // the lease it guards against has surely expired by then
	failures int
}

// voidQueue holds an executor's pending compensations. Its fields are
// guarded by mu.
type voidQueue struct {
	mu      sync.Mutex
	items   []voidItem
	running bool // the compensation goroutine runs
	outage  bool // the last round failed entirely: send new items and one probe
	warned  bool // a failure since the last clean round was logged as a warning
	gaveUp  bool // a give-up since the last clean round was logged as a warning
}

// voidTTL returns how long the void marker of an acquisition with a lease of
// ttl lives: at least as long as the lease, and at least minVoidTTL.
func voidTTL(ttl time.Duration) time.Duration { return max(ttl, minVoidTTL) }

// compensate schedules the compensation of l, an acquisition with a lease
// of ttl whose outcome is unknown: the void script, which sets the owner's
// void marker (so the acquisition can no longer take the key) and deletes
// the key if it holds the owner. It never blocks on the network, except
// after Close, when it makes one attempt in the caller's goroutine.
//
// One goroutine per executor, started on demand, runs the pending
// compensations in one pipeline per round (per Cluster node) and retries the
// failed ones with backoff until they succeed, the executor is closed, or
// their lease has surely expired. While every compensation fails (Redis
// down, credentials refused), a round sends only the compensations never
// tried and one of the failed ones as a probe; all are retried once a
// round succeeds. So a Redis that is down causes neither a goroutine per
// failed acquisition nor a storm of retries, and the backlog is bounded by
// what fails during one lease. A failing outage is logged as a warning
// once, until a round succeeds again.
func (e *Executor) compensate(l *lease, ttl time.Duration) {
	d := voidTTL(ttl)
	it := voidItem{l: l, ttlArg: ms(d), giveUp: time.Now().Add(d)}
	q := &e.voids
	q.mu.Lock()
	q.items = append(q.items, it)
	start := !q.running
	q.running = true
	q.mu.Unlock()
	if start && !e.bg.Go(e.voidLoop) {
		e.voidLoop()
	}
}

// voidLoop runs rounds of the pending compensations until none is left, or
// the executor is closed while some wait for a retry.
func (e *Executor) voidLoop() {
	backoff := kit.Backoff{Min: voidBackoffMin, Max: voidBackoffMax}
	for {
		items, expired := e.takeVoids(time.Now())
		e.reportGiveUps(expired)
		if items == nil {
			return
		}
		failed, firstErr := e.voidRound(items)
		e.requeueVoids(failed, len(failed) == len(items))
		e.reportRound(items, failed, firstErr)
		if len(failed) == 0 {
			backoff.Reset()
			continue
		}
		if !backoff.Wait(e.done) {
			e.dropVoids()
			return
		}
	}
}

// takeVoids removes the compensations whose lease has surely expired by now
// (returned as expired: too late to matter) and the next batch to send: up
// to voidBatch from the front of the queue, or during an outage the ones
// never tried and one failed one. When nothing is pending it marks the loop
// stopped and returns nil items.
func (e *Executor) takeVoids(now time.Time) (items, expired []voidItem) {
	q := &e.voids
	q.mu.Lock()
	defer q.mu.Unlock()
	keep := q.items[:0]
	probe := !q.outage
	for _, it := range q.items {
		switch {
		case now.After(it.giveUp):
			expired = append(expired, it)
		case len(items) < voidBatch && (!q.outage || it.failures == 0 || !probe):
			probe = probe || it.failures > 0
			items = append(items, it)
		default:
			keep = append(keep, it)
		}
	}
	clear(q.items[len(keep):])
	q.items = keep
	if len(items) == 0 {
		q.items, q.running = nil, false
		return nil, expired
	}
	return items, expired
}

// requeueVoids puts failed compensations back at the end of the queue;
// allFailed records whether the round failed entirely (an outage).
func (e *Executor) requeueVoids(failed []voidItem, allFailed bool) {
	q := &e.voids
	q.mu.Lock()
	q.items = append(q.items, failed...)
	q.outage = allFailed
	q.mu.Unlock()
}

// dropVoids gives the pending compensations up, as the executor closes.
func (e *Executor) dropVoids() {
	q := &e.voids
	q.mu.Lock()
	items := q.items
	q.items, q.running = nil, false
	q.mu.Unlock()
	if len(items) > 0 {
		e.log.Warn("redis: executor closed before removing the possible lock of an acquisition whose reply was lost; the key stays locked until its TTL at worst",
			"key", items[0].l.key(), "count", len(items))
	}
}

// voidRound runs the void script of every item in one pipeline (sent with
// EVAL: compensations are rare, and this spares the NOSCRIPT fallback),
// bounded by CleanupTimeout, and returns the items that failed, each with
// one more failure, and the first error.
func (e *Executor) voidRound(items []voidItem) (failed []voidItem, firstErr error) {
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.CleanupTimeout)
	defer cancel()
	cmds := make([]*goredis.Cmd, len(items))
	_, perr := e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, it := range items {
			l := it.l
			cmds[i] = voidScript.Eval(ctx, p, l.keys[:2], l.ownerArg, l.channel, it.ttlArg)
		}
		return nil
	})
	for i, it := range items {
		deleted, err := pipelinedInt(cmds[i], perr)
		if err == nil {
			e.log.Debug("redis: compensated an acquisition whose reply was lost",
				"key", it.l.key(), "deleted", deleted == 1, "attempts", it.failures+1)
			continue
		}
		if firstErr == nil {
			firstErr = err
		}
		it.failures++
		failed = append(failed, it)
	}
	return failed, firstErr
}
