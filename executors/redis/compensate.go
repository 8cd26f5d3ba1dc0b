package redis

import (
	"context"
	"time"

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
// their lease has surely expired: a Redis that is down causes neither a
// goroutine per failed acquisition nor a storm of retries.
func (e *Executor) compensate(l *lease, ttl time.Duration) {
	d := voidTTL(ttl)
	it := voidItem{l: l, ttlArg: ms(d), giveUp: time.Now().Add(d)}
	e.voidMu.Lock()
	e.voids = append(e.voids, it)
	start := !e.voiding
	e.voiding = true
	e.voidMu.Unlock()
	if start && !e.spawn(e.voidLoop) {
		e.voidLoop()
	}
}

// voidLoop runs rounds of the pending compensations until none is left, or
// the executor is closed while some wait for a retry.
func (e *Executor) voidLoop() {
	backoff := voidBackoffMin
	for {
		items := e.takeVoids()
		if items == nil {
			return
		}
		failed := e.voidRound(items)
		if len(failed) == 0 {
			backoff = voidBackoffMin
			continue
		}
		e.voidMu.Lock()
		e.voids = append(failed, e.voids...)
		e.voidMu.Unlock()
		if !e.pause(backoff) {
			e.dropVoids()
			return
		}
		backoff = min(2*backoff, voidBackoffMax)
	}
}

// takeVoids removes up to voidBatch pending compensations and returns them;
// when none is pending, it marks the loop stopped and returns nil.
func (e *Executor) takeVoids() []voidItem {
	e.voidMu.Lock()
	defer e.voidMu.Unlock()
	if len(e.voids) == 0 {
		e.voids, e.voiding = nil, false
		return nil
	}
	n := min(len(e.voids), voidBatch)
	items := e.voids[:n:n]
	e.voids = e.voids[n:]
	return items
}

// dropVoids gives the pending compensations up, as the executor closes.
func (e *Executor) dropVoids() {
	e.voidMu.Lock()
	items := e.voids
	e.voids, e.voiding = nil, false
	e.voidMu.Unlock()
	if len(items) > 0 {
		e.log.Warn("redis: executor closed before removing the possible lock of an acquisition whose reply was lost; the key stays locked until its TTL at worst",
			"key", items[0].l.key(), "count", len(items))
	}
}

// pause waits d and reports true, or reports false at once when the
// executor is closed.
func (e *Executor) pause(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-e.done:
		return false
	}
}

// voidRound runs the void script of every item in one pipeline (sent with
// EVAL: compensations are rare, and this spares the NOSCRIPT fallback),
// bounded by CleanupTimeout, and returns the items to retry.
func (e *Executor) voidRound(items []voidItem) []voidItem {
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.CleanupTimeout)
	defer cancel()
	cmds := make([]*goredis.Cmd, len(items))
	_, _ = e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, it := range items {
			l := it.l
			cmds[i] = voidScript.Eval(ctx, p, l.keys[:2], l.ownerArg, l.channel, it.ttlArg)
		}
		return nil
	})
	var (
		failed          []voidItem
		fresh, gaveUp   int    // first failures, abandoned compensations
		freshKey, upKey string // one key of each, for the log
		firstErr        error
	)
	now := time.Now()
	for i, it := range items {
		deleted, err := cmds[i].Int64()
		switch {
		case err == nil:
			e.log.Debug("redis: compensated an acquisition whose reply was lost",
				"key", it.l.key(), "deleted", deleted == 1, "attempts", it.failures+1)
			continue
		case now.After(it.giveUp):
			gaveUp++
			upKey = it.l.key()
		default:
			if it.failures == 0 {
				fresh++
				freshKey = it.l.key()
			}
			it.failures++
			failed = append(failed, it)
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	// One line per round, not per acquisition: a Redis that is down fails
	// them all.
	if fresh > 0 {
		e.log.Warn("redis: an acquisition's reply was lost and removing its possible lock failed; retrying in the background",
			"key", freshKey, "count", fresh, "err", firstErr)
	}
	if gaveUp > 0 {
		e.log.Warn("redis: gave up removing the possible lock of an acquisition whose reply was lost; its lease has expired by now",
			"key", upKey, "count", gaveUp, "err", firstErr)
	}
	return failed
}
