package redis

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lock4go/lock4go/internal/lifecycle"
	"github.com/lock4go/lock4go/internal/queued"
)

// WatchRelease implements [executor.Waiter]. An attempt of a waiting
// request ([executor.Request.Wait]) that finds the key busy queues the
// executor in the key's wait queue on the server, in arrival order; a
// release grants the key to the executor at the head (its lock with its
// token, for [Options.ClaimWindow], which the executor's next attempt on the
// key confirms with one script) and tells it on the executor's wake
// channel. The returned channel receives a value after such a wake, also one
// that came between that attempt and WatchRelease, and after a reconnect of
// pub/sub, which may have missed wakes.
//
// All waits of an executor share one subscription, opened by the first
// WatchRelease and kept until Close (on a Cluster client, one sharded
// subscription per slot with waiters, kept until the slot has had none for
// 30 s): the first waits for the server's confirmation (bounded by ctx and
// [Options.SubscribeTimeout]) and signals its channel at once, since a wake
// may have come before the subscription.
// Watches never block on a pub/sub that is down: the channel may then never
// fire, and the Template polls at its retry interval.
//
// Expiries and releases made by other programs (Lock4j's own
// compare-and-delete) wake nobody; waiters notice them by polling. stop must
// be called exactly once (later calls do nothing); it never blocks on the
// network. A stop that leaves nobody of this executor waiting for key
// removes the executor from key's queue in the background, unless another
// of its waiters watches key within [queued.LeaveDelay]. Once the executor is
// closed the channel is ready at once (see [Executor.Close]).
func (e *Executor) WatchRelease(ctx context.Context, key string) (released <-chan struct{}, stop func()) {
	if e.core.Closed() {
		return lifecycle.Fired(), func() {}
	}
	w := queued.NewWatcher()
	h, channel, unwatch := e.subscription(key)
	if h == nil {
		return lifecycle.Fired(), func() {}
	}
	first := h.listen(channel, e.onWake, e.waits.WakeAll)
	e.waits.Add(key, w, e.opts.ClaimWindow)
	h.ready(ctx, channel)
	if first {
		// A wake may have come before the subscription: the next attempt
		// asks the server.
		e.waits.Wake(key, e.opts.ClaimWindow)
	}
	return w.C(), e.core.Unwatch(key, w, unwatch)
}

// onWake handles a message on the executor's wake channel: the payload is
// the key a release granted to the executor, a NUL and the grant's token
// and flags, or sharedWake and the key when it handed read locks or
// permits.
func (e *Executor) onWake(payload string) {
	if key, ok := strings.CutPrefix(payload, sharedWake); ok {
		e.waits.WakeShared(key, e.opts.ClaimWindow)
		return
	}
	key, granted, ok := strings.Cut(payload, sharedWake)
	if !ok {
		e.waits.Wake(payload, e.opts.ClaimWindow)
		return
	}
	// The lock keeps the grant's token and its flags q and a; l and r,
	// which come last, are the grant's own.
	e.waits.grant(key, e.grantBase+granted, strings.TrimRight(granted, "lr"), e.opts.ClaimWindow)
}

// subscription returns the hub and wake channel of key's waiters, and a
// function to call once when the watch ends: the executor's one classic
// channel, or on a Cluster client the sharded channel of key's slot. It
// returns a nil hub once the executor is closed.
func (e *Executor) subscription(key string) (h *hub, channel string, unwatch func()) {
	if e.shards != nil {
		return e.shards.watch(key)
	}
	return e.hub, e.wakeChannel, func() {}
}

// wakesHealthy reports whether the wake subscription of key's waiters is
// confirmed and no confirmation is overdue: wakes then arrive.
func (e *Executor) wakesHealthy(key string) bool {
	if e.shards != nil {
		return e.shards.healthy(key)
	}
	return e.hub.healthy()
}

// wakeEpoch returns the confirmation epoch of the wake subscription of
// key's waiters (see hub.epoch).
func (e *Executor) wakeEpoch(key string) uint64 {
	if e.shards != nil {
		return e.shards.epoch(key)
	}
	return e.hub.epoch.Load()
}

// wakePrefix returns the prefix of the wake channels the scripts publish on
// for key: on a Cluster client the sharded channels of key's slot,
// "{<slot tag>}lock4go:wake:".
func (e *Executor) wakePrefix(key string) string { return shardChannelPrefix(key) }

// waits is what the executor knows of its callers' waits ([queued.Waits]:
// the watchers of each key, its place in the key's queue, the wakes that
// came before any watcher) and the direct grants that wakes announced.
type waits struct {
	queued.Waits
	gmu sync.Mutex
	// grants holds the direct grants that wakes announced, by key, for the
	// next attempt on the key to confirm (see takeGrant).
	grants map[string]grantNote
	ng     atomic.Int32 // len(grants), read on the acquire path without gmu
}

// grantNote is a direct grant a wake announced: the key's value
// ("lock4go:claim:<member>\x00<token><flags>"), the "<token><flags>" of the
// lock it becomes, and when the wake came.
type grantNote struct {
	value, granted string
	at             time.Time
}

// grant records the direct grant of key that a wake announced, with its
// "<token><flags>", and wakes key's watchers (or keeps the wake for a
// watcher to come).
func (q *waits) grant(key, value, granted string, window time.Duration) {
	q.gmu.Lock()
	if q.grants == nil || len(q.grants) >= maxRecentWakes {
		// Grants nobody confirmed pile up only while waiters die or give
		// up; forgetting them costs a confirmation its fast path, never a
		// lock (the attempt finds the grant on the server).
		q.grants = map[string]grantNote{}
	}
	q.grants[key] = grantNote{value: value, granted: granted, at: time.Now()}
	q.ng.Store(int32(len(q.grants)))
	q.gmu.Unlock()
	q.Wake(key, window)
}

// takeGrant returns, once, the direct grant of key that a wake announced
// within window, for the attempt that confirms it.
func (q *waits) takeGrant(key string, window time.Duration) (grantNote, bool) {
	if q.ng.Load() == 0 {
		return grantNote{}, false
	}
	q.gmu.Lock()
	defer q.gmu.Unlock()
	g, ok := q.grants[key]
	if !ok {
		return grantNote{}, false
	}
	delete(q.grants, key)
	q.ng.Store(int32(len(q.grants)))
	return g, time.Since(g.at) < window
}
