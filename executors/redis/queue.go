package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"
)

// Names of the wait queue's values (see docs/redis.md, "Wait queue"):
// a released key that waiters queue for holds claimPrefix and the member of
// the executor at the head of its queue for [Options.ClaimWindow], and the
// release script tells that executor on its wake channel.
const (
	claimPrefix       = "lock4go:claim:"
	wakeChannelPrefix = "lock4go:wake:"

	// queueTTL is the life of a wait queue after its last registration:
	// every attempt of a waiter refreshes it (at least every retry
	// interval), so it outlives its live waiters and expires after the
	// dead ones.
	queueTTL = 30 * time.Second

	// maxRecentWakes bounds the wakes kept for watchers yet to come.
	maxRecentWakes = 1024
)

// newMember returns a random name for an executor in wait queues.
func newMember() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// waits is what an executor knows of its callers' waits: the watchers of
// each key, whether the executor may still stand in the key's queue, and
// the wakes that came before any watcher.
type waits struct {
	mu     sync.Mutex
	keys   map[string]*keyWaits
	recent map[string]time.Time // wakes no watcher took yet
	// ahead holds the keys for which a holder of this executor queued it
	// again for its followers, with no wake since.
	ahead map[string]struct{}
	n     atomic.Int32 // len(keys)+len(ahead), read on the acquire path without mu
}

// keyWaits is one key's waits.
type keyWaits struct {
	watchers map[*watcher]struct{}
	// queued: the executor may stand in the key's queue (an attempt of a
	// waiter registered it and none has taken the key since).
	queued bool
}

// watcher is one WatchRelease call.
type watcher struct {
	ch chan struct{} // cap 1, sent to without blocking
}

// wake signals w without blocking.
func (w *watcher) wake() {
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

// queued reports whether the executor may stand in key's queue.
func (q *waits) queued(key string) bool {
	if q.n.Load() == 0 {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	kw := q.keys[key]
	return kw != nil && kw.queued
}

// setQueued records the outcome of an attempt of a waiter on key: queued
// after a registration, not after the key was taken. Keys nobody watches
// are not recorded (their waiter gave up, or has yet to watch, and then
// assumes a registration).
func (q *waits) setQueued(key string, queued bool) {
	if q.n.Load() == 0 {
		return
	}
	q.mu.Lock()
	if kw := q.keys[key]; kw != nil {
		kw.queued = queued
	}
	q.mu.Unlock()
}

// add registers w as a watcher of key, after an attempt that queued the
// executor. It wakes w at once if a wake for key came within window.
func (q *waits) add(key string, w *watcher, window time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.keys == nil {
		q.keys = map[string]*keyWaits{}
	}
	kw := q.keys[key]
	if kw == nil {
		kw = &keyWaits{watchers: map[*watcher]struct{}{}}
		q.keys[key] = kw
		q.count()
	}
	kw.watchers[w] = struct{}{}
	kw.queued = true
	if t, ok := q.recent[key]; ok {
		delete(q.recent, key)
		if time.Since(t) < window {
			w.wake()
		}
	}
}

// remove unregisters w. It reports whether w was key's last watcher and
// the executor may still stand in key's queue: then nobody here will take
// the claim a release may give it.
func (q *waits) remove(key string, w *watcher) (leftQueued bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	kw := q.keys[key]
	if kw == nil {
		return false
	}
	delete(kw.watchers, w)
	if len(kw.watchers) > 0 {
		return false
	}
	delete(q.keys, key)
	q.count()
	return kw.queued
}

// count refreshes n; q.mu is held.
func (q *waits) count() { q.n.Store(int32(len(q.keys) + len(q.ahead))) }

// setAhead records that a holder of key queued the executor again for its
// followers.
func (q *waits) setAhead(key string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ahead == nil || len(q.ahead) >= maxRecentWakes {
		// Entries whose queue entry vanished without a wake would pile up;
		// forgetting them costs a round trip each, never a lock.
		q.ahead = map[string]struct{}{}
	}
	q.ahead[key] = struct{}{}
	q.count()
}

// takeAhead reports, once, whether the executor stands in key's queue on
// behalf of a follower with no wake since: the key is then still busy.
func (q *waits) takeAhead(key string) bool {
	if q.n.Load() == 0 {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.ahead[key]; !ok {
		return false
	}
	delete(q.ahead, key)
	q.count()
	return true
}

// wake wakes key's watchers, or keeps the wake for a watcher to come (the
// release can outrun the reply of the attempt that queued).
func (q *waits) wake(key string, window time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.ahead[key]; ok {
		delete(q.ahead, key)
		q.count()
	}
	if kw := q.keys[key]; kw != nil {
		for w := range kw.watchers {
			w.wake()
		}
		return
	}
	now := time.Now()
	if len(q.recent) >= maxRecentWakes {
		for k, t := range q.recent {
			if now.Sub(t) >= window {
				delete(q.recent, k)
			}
		}
		if len(q.recent) >= maxRecentWakes {
			clear(q.recent)
		}
	}
	if q.recent == nil {
		q.recent = map[string]time.Time{}
	}
	q.recent[key] = now
}

// wakeAll wakes every watcher: wakes may have been missed.
func (q *waits) wakeAll() {
	q.mu.Lock()
	defer q.mu.Unlock()
	clear(q.ahead)
	q.count()
	for _, kw := range q.keys {
		for w := range kw.watchers {
			w.wake()
		}
	}
}

// WatchRelease implements [executor.Waiter]. An attempt of a waiting
// request ([executor.Request.Wait]) that finds the key busy queues the
// executor in the key's wait queue on the server, in arrival order; a
// release hands the key to the executor at the head (it holds a claim for
// it for [Options.ClaimWindow]) and tells it on the executor's wake
// channel. The returned channel receives a value after such a wake, also one
// that came between that attempt and WatchRelease, and after a reconnect of
// pub/sub, which may have missed wakes.
//
// All waits of an executor share one subscription, opened by the first
// WatchRelease and kept until Close: the first waits for the server's
// confirmation (bounded by ctx and [Options.SubscribeTimeout]) and signals
// its channel at once, since a wake may have come before the subscription.
// Watches never block on a pub/sub that is down: the channel may then never
// fire, and the Template polls at its retry interval.
//
// Expiries and releases made by other programs (Lock4j's own
// compare-and-delete) wake nobody; waiters notice them by polling. stop must
// be called exactly once (later calls do nothing); it never blocks on the
// network. A stop that leaves nobody of this executor waiting for key
// removes the executor from key's queue in the background.
func (e *Executor) WatchRelease(ctx context.Context, key string) (released <-chan struct{}, stop func()) {
	w := &watcher{ch: make(chan struct{}, 1)}
	first := e.hub.listen(e.wakeChannel, e.onWake, e.waits.wakeAll)
	e.waits.add(key, w, e.opts.ClaimWindow)
	e.hub.ready(ctx, e.wakeChannel)
	if first {
		w.wake()
	}
	var once sync.Once
	return w.ch, func() {
		once.Do(func() {
			if e.waits.remove(key, w) {
				e.leaveQueue(key)
			}
		})
	}
}

// onWake handles a message on the executor's wake channel: the payload is
// the key a release handed to the executor.
func (e *Executor) onWake(key string) { e.waits.wake(key, e.opts.ClaimWindow) }

// leaveQueue removes the executor from key's queue in the background, best
// effort: an entry left behind costs the next waiter a claim window at
// worst.
func (e *Executor) leaveQueue(key string) {
	e.bg.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), e.opts.CleanupTimeout)
		defer cancel()
		keys := []string{key, queueKey(key)}
		if err := leaveScript.Run(ctx, e.client, keys, e.memberArg, channelName(key), e.claimArg).Err(); err != nil {
			e.log.Debug("redis: leaving a wait queue failed; the entry is skipped when its turn comes", "key", key, "err", err)
		}
	})
}
