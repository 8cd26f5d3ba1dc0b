package redis

import (
	"context"
	"log/slog"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/internal/kit"
)

// Bounds of the voids, see [Executor.void].
const (
	// minVoidTTL is the shortest life of a void marker: long enough for a
	// delayed command (TCP retransmissions, a stalled server) to find it.
	minVoidTTL = 30 * time.Second
	// Backoff between rounds of failed voids: doubled from the
	// first to the last value.
	voidBackoffMin = 50 * time.Millisecond
	voidBackoffMax = 2 * time.Second
	// voidBatch bounds the voids sent in one pipeline, so that a
	// backlog built up while Redis was down comes back in parts.
	voidBatch = 256
)

// voidItem is one pending void.
type voidItem struct {
	l        *lease
	ttlArg   any       // the void marker's life in ms, boxed
	giveUp   time.Time // the lease it guards against has surely expired by then
	failures int
	// quiet: the acquisition most likely never reached Redis (its last
	// attempt could not connect), so its void's failures are debug messages.
	quiet bool
}

// voidQueue holds an executor's pending voids. Its fields are
// guarded by mu.
type voidQueue struct {
	mu      sync.Mutex
	items   []voidItem
	running bool // the void goroutine runs
	outage  bool // the last round failed entirely: send new items and one probe
	warned  bool // a failure since the last clean round was logged as a warning
	gaveUp  bool // a give-up since the last clean round was logged as a warning
}

// voidTTL returns how long the void marker of an acquisition with a lease of
// ttl lives: at least as long as the lease, and at least minVoidTTL.
func voidTTL(ttl time.Duration) time.Duration { return max(ttl, minVoidTTL) }

// voidLater schedules the void of l, an acquisition with a lease of ttl
// whose outcome is unknown: the void script, which sets the owner's void
// marker (so that the next waiter takes the key over should the command
// land later) and frees the key if it holds the owner. A quiet void is one
// of an acquisition whose last attempt could not connect: it most likely
// never reached Redis, so its failures are logged at debug level. It never blocks on the network, except
// after Close, when it makes one attempt in the caller's goroutine.
//
// One goroutine per executor, started on demand, runs the pending
// voids in one pipeline per round (per Cluster node) and retries the
// failed ones with backoff until they succeed, the executor is closed, or
// their lease has surely expired. While every void fails (Redis
// down, credentials refused), a round sends only the voids never
// tried and one of the failed ones as a probe; all are retried once a
// round succeeds. So a Redis that is down causes neither a goroutine per
// failed acquisition nor a storm of retries, and the backlog is bounded by
// what fails during one lease. A failing outage is logged as a warning
// once, until a round succeeds again.
func (e *Executor) voidLater(l *lease, ttl time.Duration, quiet bool) {
	d := voidTTL(ttl)
	it := voidItem{l: l, ttlArg: kit.Millis(d), giveUp: time.Now().Add(d), quiet: quiet}
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

// voidLoop runs rounds of the pending voids until none is left, or
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

// takeVoids removes the voids whose lease has surely expired by now
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

// requeueVoids puts failed voids back at the end of the queue;
// allFailed records whether the round failed entirely (an outage).
func (e *Executor) requeueVoids(failed []voidItem, allFailed bool) {
	q := &e.voids
	q.mu.Lock()
	q.items = append(q.items, failed...)
	q.outage = allFailed
	q.mu.Unlock()
}

// dropVoids gives the pending voids up, as the executor closes.
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
// EVAL: voids are rare, and this spares the NOSCRIPT fallback),
// bounded by CleanupTimeout, and returns the items that failed, each with
// one more failure, and the first error.
func (e *Executor) voidRound(items []voidItem) (failed []voidItem, firstErr error) {
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.CleanupTimeout)
	defer cancel()
	cmds := make([]*goredis.Cmd, len(items))
	_, perr := e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, it := range items {
			cmds[i] = it.l.voidCmd(ctx, p, it.ttlArg)
		}
		return nil
	})
	for i, it := range items {
		deleted, err := pipelinedInt(cmds[i], perr)
		if err == nil {
			e.log.Debug("redis: voided an acquisition whose reply was lost",
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

// reportRound logs the outcome of a void round. The first failure
// after a clean round is a warning; later ones are debug messages until a
// round succeeds entirely, which is logged at info level if a warning was
// given: one warning per outage and cause, not one per round.
func (e *Executor) reportRound(items, failed []voidItem, firstErr error) {
	q := &e.voids
	quiet := allQuiet(failed)
	q.mu.Lock()
	warn := len(failed) > 0 && !q.warned && !quiet
	recovered := len(failed) == 0 && q.warned
	if len(failed) > 0 && !quiet {
		q.warned = true
	} else if len(failed) == 0 {
		q.warned, q.gaveUp = false, false
	}
	q.mu.Unlock()
	switch {
	case len(failed) > 0:
		level := slog.LevelDebug
		if warn {
			level = slog.LevelWarn
		}
		e.log.Log(context.Background(), level, "redis: an acquisition's reply was lost and removing its possible lock failed; retrying in the background (logged once until removals succeed again)",
			"key", failed[0].l.key(), "count", len(failed), "err", firstErr)
	case recovered:
		e.log.Info("redis: removals of the possible locks of lost replies succeed again", "count", len(items))
	}
}

// reportGiveUps logs voids given up because their lease has surely
// expired: a warning for the first since a clean round, debug messages
// after it.
func (e *Executor) reportGiveUps(expired []voidItem) {
	if len(expired) == 0 {
		return
	}
	q := &e.voids
	q.mu.Lock()
	level := slog.LevelDebug
	if !q.gaveUp && !allQuiet(expired) {
		q.gaveUp = true
		level = slog.LevelWarn
	}
	q.mu.Unlock()
	e.log.Log(context.Background(), level, "redis: gave up removing the possible locks of acquisitions whose reply was lost; their leases have expired by now",
		"key", expired[0].l.key(), "count", len(expired))
}

// allQuiet reports whether every item is a quiet void.
func allQuiet(items []voidItem) bool {
	for _, it := range items {
		if !it.quiet {
			return false
		}
	}
	return true
}
