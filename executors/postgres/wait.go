package postgres

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/lock4go/lock4go/internal/kit"
)

// Payloads of wake notifications: the kind of hand-off, then the key.
const (
	wakeLock   = "w" // the key's lock, as a claim on its row
	wakeShares = "s" // read locks or permits, as claims among its shares
)

// WatchRelease implements [executor.Waiter]. An attempt of a waiting
// request ([executor.Request.Wait]) that finds the key busy queues the
// executor in the key's wait queue, in arrival order; a release hands the
// key to the executor at the head (a claim on it for
// [Options.ClaimWindow]) and tells it with pg_notify on the executor's
// channel, in the release's transaction. The returned channel receives a
// value after such a wake, also one that came between that attempt and
// WatchRelease, and after the LISTEN connection reconnected, which may
// have missed wakes.
//
// All waits of an executor share its one LISTEN connection, opened by the
// first WatchRelease and kept until Close: the first waits for the LISTEN
// (bounded by ctx and [Options.SubscribeTimeout]) and signals its channel
// at once, since a wake may have come before it. Watches never block on a
// connection that is down: the channel may then never fire, and the
// Template polls at its retry interval. Once the executor is closed the
// channel is ready at once (see [Executor.Close]).
//
// Expiries wake nobody; waiters notice them by polling. stop must be
// called exactly once (later calls do nothing); it never blocks on the
// network. A stop that leaves nobody of this executor waiting for key
// removes the executor from key's queue in the background, unless another
// of its waiters watches key within [kit.LeaveDelay].
func (e *Executor) WatchRelease(ctx context.Context, key string) (released <-chan struct{}, stop func()) {
	if e.isClosed() {
		return kit.Fired(), func() {}
	}
	w := kit.NewWatcher()
	// Counted first, so that an idle listener that sees no waiter and
	// stops does so before start.
	e.waits.Add(key, w, e.opts.ClaimWindow)
	first := e.listener.start()
	e.listener.wait(ctx)
	if first || !e.listener.listening() {
		e.waits.WakeKey(key, w)
	}
	var once sync.Once
	return w.C(), func() {
		once.Do(func() {
			if e.waits.Remove(key, w) {
				e.waits.LeaveLater(key, kit.LeaveDelay, func() { e.leaveQueue(key) })
			}
		})
	}
}

// onWake handles a wake notification.
func (e *Executor) onWake(payload string) {
	if key, ok := strings.CutPrefix(payload, wakeShares); ok {
		e.waits.WakeShared(key, e.opts.ClaimWindow)
		return
	}
	if key, ok := strings.CutPrefix(payload, wakeLock); ok {
		e.waits.Wake(key, e.opts.ClaimWindow)
	}
}

// leaveQueue removes the executor from key's queue in the background, best
// effort: an entry left behind costs the next waiter a claim window at
// worst.
func (e *Executor) leaveQueue(key string) {
	e.bg.Go(func() {
		ctx, cancel := e.detached()
		defer cancel()
		if _, err := e.pool.Exec(ctx, e.sql.leave, pgxExec, key, e.member, e.claimMs); err != nil && e.life.Err() == nil {
			e.log.Debug("postgres: leaving a wait queue failed; the entry is skipped when its turn comes", "key", key, "err", err)
		}
	})
}

// quietPoll is how often a waiter that stands in the queue, and heard of
// no release since, asks the database: the Template's other retries are
// answered "busy" without a round trip (see [kit.Waits.Quiet]).
const quietPoll = time.Second

// busyLocally reports whether a waiting attempt of a lock on key can be
// answered "busy" without a round trip: the executor stands in the key's
// queue, listening, and no wake came since its last poll (at most
// quietPoll ago). Otherwise it records the poll, before the round trip.
func (e *Executor) busyLocally(key string) bool {
	now := time.Now()
	if e.waits.Quiet(key, now, quietPoll) && e.listener.listening() {
		return true
	}
	e.waits.PolledAt(key, now)
	return false
}
