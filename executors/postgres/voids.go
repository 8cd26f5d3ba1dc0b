package postgres

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/lock4go/lock4go/internal/kit"
)

// Bounds of the voids, see [Executor.voidLater].
const (
	// minVoidTTL is the shortest life of a void marker: long enough for a
	// delayed statement (TCP retransmissions, a stalled server) to find it.
	minVoidTTL = 30 * time.Second
	// Backoff between rounds of failed voids: doubled from the first to
	// the last value.
	voidBackoffMin = 50 * time.Millisecond
	voidBackoffMax = 2 * time.Second
	// voidBatch bounds the voids sent in one round.
	voidBatch = 256
)

// errCloseDeadline is why voids were not sent: Close's clean-up deadline
// had passed.
var errCloseDeadline = errors.New("postgres: not sent: CleanupTimeout since Close began had passed")

// voidItem is one pending void.
type voidItem struct {
	l        *lease
	ttlMs    int64     // the void marker's life
	giveUp   time.Time // the lease it guards against has surely ended by then
	failures int
}

// voidQueue holds an executor's pending voids. Its fields are guarded by
// mu.
type voidQueue struct {
	mu      sync.Mutex
	items   []voidItem
	running bool // the void goroutine runs
	outage  bool // the last round failed entirely: send one as a probe
	warned  bool // a failure since the last clean round was logged as a warning
}

// voidLater schedules the void of l, an acquisition with a lease of ttl
// whose outcome is unknown: the void statement marks the owner void (so
// that the acquisition, should it land later, takes nothing) and frees
// what the owner holds. It never blocks on the network.
//
// One goroutine per executor, started on demand, runs the pending voids,
// one statement each, and retries the failed ones with backoff until they
// succeed, the executor is closed, or their lease has surely ended. While
// every void fails (the database down), a round sends only one of them, as
// a probe. A failing outage is logged as a warning once, until a round
// succeeds again.
func (e *Executor) voidLater(l *lease, ttl time.Duration) {
	d := max(ttl, minVoidTTL)
	q := &e.voids
	q.mu.Lock()
	q.items = append(q.items, voidItem{l: l, ttlMs: ms(d), giveUp: time.Now().Add(d)})
	start := !q.running
	q.running = true
	q.mu.Unlock()
	if start && !e.bg.Go(e.voidLoop) {
		e.voidLoop()
	}
}

// voidLoop runs rounds of the pending voids until none is left, or the
// executor is closed while some wait for a retry.
//
// Once Close has begun, the voids waiting for a retry get one more round,
// and what fails then is dropped: every statement of the loop ends by
// Close's clean-up deadline ([Executor.cleanupDeadline]).
func (e *Executor) voidLoop() {
	backoff := kit.Backoff{Min: voidBackoffMin, Max: voidBackoffMax}
	closing := false
	for {
		items := e.takeVoids(time.Now())
		if items == nil {
			return
		}
		failed, firstErr := e.voidRound(items)
		e.requeueVoids(failed, len(failed) == len(items))
		e.reportVoids(failed, firstErr)
		switch {
		case len(failed) == 0:
			backoff.Reset()
		case closing:
			e.dropVoids()
			return
		case !backoff.Wait(e.life.Done()):
			closing = true
		}
	}
}

// takeVoids removes from the queue the voids whose lease has surely ended
// (too late to matter) and the next ones to send: up to voidBatch, or one
// during an outage. When nothing is pending it marks the loop stopped and
// returns nil.
func (e *Executor) takeVoids(now time.Time) []voidItem {
	q := &e.voids
	q.mu.Lock()
	defer q.mu.Unlock()
	n := voidBatch
	if q.outage {
		n = 1
	}
	var items []voidItem
	keep := q.items[:0]
	for _, it := range q.items {
		switch {
		case now.After(it.giveUp):
			e.log.Debug("postgres: gave up voiding an acquisition whose reply was lost; its lease has ended by now", "key", it.l.key)
		case len(items) < n:
			items = append(items, it)
		default:
			keep = append(keep, it)
		}
	}
	clear(q.items[len(keep):])
	q.items = keep
	if len(items) == 0 {
		q.items, q.running = nil, false
		return nil
	}
	return items
}

// voidRound runs the void statement of every item, each bounded by
// CleanupTimeout and all by Close's clean-up deadline (the items left when
// it passes are not sent), and returns the items that failed, each with
// one more failure, and the first error.
func (e *Executor) voidRound(items []voidItem) (failed []voidItem, firstErr error) {
	for i, it := range items {
		deadline, ok := e.cleanupDeadline(time.Now())
		if !ok {
			return append(failed, items[i:]...), cmp.Or(firstErr, errCloseDeadline)
		}
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		held, err := e.queryInt(ctx, e.sql.void, it.l.key, it.l.owner, it.ttlMs, e.claimMs)
		cancel()
		if err == nil {
			e.log.Debug("postgres: voided an acquisition whose reply was lost", "key", it.l.key, "held", held == 1, "attempts", it.failures+1)
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

// requeueVoids puts failed voids back at the front of the queue; allFailed
// records whether the round failed entirely (an outage).
func (e *Executor) requeueVoids(failed []voidItem, allFailed bool) {
	q := &e.voids
	q.mu.Lock()
	q.items = append(failed, q.items...)
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
		e.log.Warn("postgres: executor closed before removing the possible lock of an acquisition whose reply was lost; the key stays locked until its lease ends at worst (no other executor voids it)",
			"key", items[0].l.key, "count", len(items))
	}
}

// reportVoids logs a failed round: the first failure after a clean round
// is a warning, later ones are debug messages until a round succeeds.
func (e *Executor) reportVoids(failed []voidItem, firstErr error) {
	q := &e.voids
	q.mu.Lock()
	warn := len(failed) > 0 && !q.warned
	q.warned = len(failed) > 0
	q.mu.Unlock()
	if len(failed) == 0 {
		return
	}
	level := slog.LevelDebug
	if warn {
		level = slog.LevelWarn
	}
	e.log.Log(context.Background(), level, "postgres: an acquisition's reply was lost and removing its possible lock failed; retrying in the background (logged once until removals succeed again)",
		"key", failed[0].l.key, "count", len(failed), "err", firstErr)
}
