package queued

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/lock4go/lock4go/internal/lifecycle"
)

// Bounds of the voids, see [Core.VoidLater].
const (
	// MinVoidTTL is the shortest life of a void marker: long enough for a
	// delayed write (TCP retransmissions, a stalled server) to find it.
	MinVoidTTL = 30 * time.Second
	// Backoff between rounds of failed voids: doubled from the first to
	// the last value.
	voidBackoffMin = 50 * time.Millisecond
	voidBackoffMax = 2 * time.Second
	// voidBatch bounds the voids sent in one round, so that a backlog
	// built up while the backend was down comes back in parts.
	voidBatch = 256
)

// VoidTTL returns the life of the void marker of an attempt with a lease
// of ttl: at least as long as the lease, and at least [MinVoidTTL].
func VoidTTL(ttl time.Duration) time.Duration { return max(ttl, MinVoidTTL) }

// Quiet says how a failed void is logged: true for the void of an attempt
// that most likely never reached the backend (its last try could not
// connect), whose failures are debug messages; false for one that may
// have written, whose failures warn (once per outage).
type Quiet bool

// Void is one pending void: the attempt of Lease, whose reply was lost.
type Void[L Lease] struct {
	// Lease is the attempt's lease: its key, owner and whatever the void
	// statement needs.
	Lease L
	// TTL is the life of the owner's void marker ([VoidTTL]).
	TTL time.Duration

	giveUp   time.Time // the lease it guards against has surely ended by then
	failures int
	quiet    Quiet
}

// voidQueue holds an executor's pending voids. Its fields are guarded by
// mu.
type voidQueue[L Lease] struct {
	mu      sync.Mutex
	items   []Void[L]
	running bool // the void goroutine runs
	outage  bool // the last round failed entirely: send new items and one probe
	warned  bool // a failure since the last clean round was logged as a warning
	gaveUp  bool // a give-up since the last clean round was logged as a warning
}

// VoidLater schedules the void of l, an attempt with a lease of ttl whose
// outcome is unknown (a lost reply, a call abandoned at its context's end):
// the executor's [Statements.Void] marks the owner void, so that the write,
// should it land later, takes nothing (or is taken over by the next
// waiter), and frees what the owner may hold. It never blocks on the
// network, except after Close, when the rounds run in the caller's
// goroutine, bounded by Close's clean-up deadline.
//
// One goroutine per executor, started on demand, runs the pending voids in
// rounds of up to 256, each round bounded by [Core.Cleanup], and retries
// the failed ones with backoff (50ms doubling to 2s) until they succeed,
// the executor closes, or the lease they guard against has surely ended
// ([VoidTTL] from now: then they are given up, with a warning). The rules,
// decided once for every queued executor:
//
//   - A failed void goes back to the end of the queue: so a void that fails
//     for a reason of its own (a Cluster node down, a key the server
//     refuses) never keeps the others from their turn.
//   - While every void fails (an outage), a round sends the voids never
//     tried and one failed void as a probe: a new void may go to a server
//     or node that is up, and an outage costs one round trip per backoff,
//     not the whole backlog; once a round succeeds, the backlog follows at
//     once.
//   - The first failure after a clean round is a warning, later ones debug
//     messages, until a round succeeds entirely (logged at info level):
//     one warning per outage, not one per round. A quiet void (see
//     [Quiet]) never warns.
//   - Once Close has begun, the voids waiting for a retry get one more
//     round, of every pending void (up to 256), outage or not, ending by
//     Close's deadline; what is left is dropped with a warning: no other
//     executor voids it, and what its attempt may have taken stays locked
//     until its lease ends.
func (c *Core[L]) VoidLater(l L, ttl time.Duration, quiet Quiet) {
	d := VoidTTL(ttl)
	q := &c.voids
	q.mu.Lock()
	q.items = append(q.items, Void[L]{Lease: l, TTL: d, giveUp: time.Now().Add(d), quiet: quiet})
	start := !q.running
	q.running = true
	q.mu.Unlock()
	if start && !c.bg.Go(c.voidLoop) {
		c.voidLoop()
	}
}

// voidLoop runs rounds of the pending voids until none is left, or until
// the round after Close began fails.
func (c *Core[L]) voidLoop() {
	backoff := lifecycle.Backoff{Min: voidBackoffMin, Max: voidBackoffMax}
	closing := false
	for {
		items, expired := c.voids.take(time.Now(), closing)
		c.reportGiveUps(expired)
		if items == nil {
			return
		}
		failed, firstErr := c.voidRound(items)
		c.voids.requeue(failed, len(failed) == len(items))
		c.reportRound(items, failed, firstErr)
		switch {
		case len(failed) == 0:
			backoff.Reset()
		case closing:
			c.dropVoids()
			return
		case !backoff.Wait(c.life.Done()):
			closing = true
		}
	}
}

// take removes from the queue the voids whose lease has surely ended by
// now (returned as expired: too late to matter) and the next ones to send:
// up to voidBatch from the front of the queue, or during an outage (unless
// all is set) the ones never tried and one failed one. When nothing is
// pending it marks the loop stopped and returns nil items.
func (q *voidQueue[L]) take(now time.Time, all bool) (items, expired []Void[L]) {
	q.mu.Lock()
	defer q.mu.Unlock()
	keep := q.items[:0]
	open := all || !q.outage // every void may go, not only new ones and a probe
	probed := false
	for _, it := range q.items {
		switch {
		case now.After(it.giveUp):
			expired = append(expired, it)
		case len(items) < voidBatch && (open || it.failures == 0 || !probed):
			probed = probed || it.failures > 0
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

// requeue puts failed voids back at the end of the queue; allFailed
// records whether the round failed entirely (an outage).
func (q *voidQueue[L]) requeue(failed []Void[L], allFailed bool) {
	q.mu.Lock()
	q.items = append(q.items, failed...)
	q.outage = allFailed
	q.mu.Unlock()
}

// voidRound runs the voids of items in one call of [Statements.Void],
// bounded by [Core.Cleanup], and returns the items that failed, each with
// one more failure, and the first error.
func (c *Core[L]) voidRound(items []Void[L]) (failed []Void[L], firstErr error) {
	ctx, cancel := c.Cleanup()
	defer cancel()
	errs := c.st.Void(ctx, items)
	for i, it := range items {
		if errs[i] == nil {
			c.log.Debug(c.prefix+": voided an attempt whose reply was lost", "key", it.Lease.Key(), "attempts", it.failures+1)
			continue
		}
		if firstErr == nil {
			firstErr = errs[i]
		}
		it.failures++
		failed = append(failed, it)
	}
	return failed, firstErr
}

// dropVoids gives the pending voids up, as the executor closes.
func (c *Core[L]) dropVoids() {
	q := &c.voids
	q.mu.Lock()
	items := q.items
	q.items, q.running = nil, false
	q.mu.Unlock()
	if len(items) > 0 {
		c.log.Warn(c.prefix+": executor closed before voiding an attempt whose reply was lost; what it may have taken stays locked until its lease ends at worst (no other executor voids it)",
			"key", items[0].Lease.Key(), "count", len(items))
	}
}

// reportRound logs the outcome of a void round: the first failure after a
// clean round is a warning; later ones are debug messages until a round
// succeeds entirely, which is logged at info level if a warning was given.
func (c *Core[L]) reportRound(items, failed []Void[L], firstErr error) {
	q := &c.voids
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
		c.log.Log(context.Background(), level, c.prefix+": voiding an attempt whose reply was lost failed; retrying in the background (logged once until voids succeed again)",
			"key", failed[0].Lease.Key(), "count", len(failed), "err", firstErr)
	case recovered:
		c.log.Info(c.prefix+": voids of attempts whose reply was lost succeed again", "count", len(items))
	}
}

// reportGiveUps logs voids given up because their lease has surely ended:
// a warning for the first since a clean round (unless every one is quiet),
// debug messages after it.
func (c *Core[L]) reportGiveUps(expired []Void[L]) {
	if len(expired) == 0 {
		return
	}
	q := &c.voids
	q.mu.Lock()
	level := slog.LevelDebug
	if !q.gaveUp && !allQuiet(expired) {
		q.gaveUp = true
		level = slog.LevelWarn
	}
	q.mu.Unlock()
	c.log.Log(context.Background(), level, c.prefix+": gave up voiding attempts whose reply was lost; their leases have ended by now",
		"key", expired[0].Lease.Key(), "count", len(expired))
}

// allQuiet reports whether every item is a quiet void.
func allQuiet[L Lease](items []Void[L]) bool {
	for _, it := range items {
		if !it.quiet {
			return false
		}
	}
	return true
}
