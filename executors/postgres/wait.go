package postgres

import (
	"context"
	"strings"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/lifecycle"
	"github.com/lock4go/lock4go/internal/queued"
)

// Payloads of wake notifications: the kind of hand-off, then the key.
const (
	wakeLock   = "w" // the key's lock, as a claim on its row
	wakeShares = "s" // read locks or permits, as claims among its shares
)

var _ executor.Waiter = (*Executor)(nil)

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
// of its waiters watches key within [queued.LeaveDelay].
func (e *Executor) WatchRelease(ctx context.Context, key string) (released <-chan struct{}, stop func()) {
	if e.core.Closed() {
		return lifecycle.Fired(), func() {}
	}
	w := queued.NewWatcher()
	// Counted first, so that an idle listener that sees no waiter and
	// stops does so before start.
	e.waits.Add(key, w, e.opts.ClaimWindow)
	first := e.listener.start()
	e.listener.wait(ctx)
	if first || !e.listener.listening() {
		e.waits.WakeKey(key, w)
	}
	return w.C(), e.core.Unwatch(key, w, nil)
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
