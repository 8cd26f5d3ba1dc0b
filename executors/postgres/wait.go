package postgres

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"
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
// of its waiters watches key within leaveDelay.
func (e *Executor) WatchRelease(ctx context.Context, key string) (released <-chan struct{}, stop func()) {
	if e.isClosed() {
		return fired(), func() {}
	}
	w := &watcher{ch: make(chan struct{}, 1)}
	// Counted first, so that an idle listener that sees no waiter and
	// stops does so before start.
	e.waits.add(key, w, e.opts.ClaimWindow)
	first := e.listener.start()
	e.listener.wait(ctx)
	if first || !e.listener.listening() {
		e.waits.wakeKey(key, w)
	}
	var once sync.Once
	return w.ch, func() {
		once.Do(func() {
			if e.waits.remove(key, w) {
				e.waits.leaveLater(key, leaveDelay, func() { e.leaveQueue(key) })
			}
		})
	}
}

// onWake handles a wake notification.
func (e *Executor) onWake(payload string) {
	if key, ok := strings.CutPrefix(payload, wakeShares); ok {
		e.waits.wakeShared(key, e.opts.ClaimWindow)
		return
	}
	if key, ok := strings.CutPrefix(payload, wakeLock); ok {
		e.waits.wake(key, e.opts.ClaimWindow)
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

// waits is what an executor knows of its callers' waits: the watchers of
// each key, whether the executor may still stand in the key's queue, and
// the wakes that came before any watcher.
type waits struct {
	mu     sync.Mutex
	keys   map[string]*keyWaits
	recent map[string]time.Time // wakes no watcher took yet
	// recentShared holds the latest hand-off of shares of each key, for
	// every watcher to come within a claim window.
	recentShared map[string]time.Time
	// leaving holds the departures from keys' queues that wait out
	// leaveDelay (see leaveLater).
	leaving map[string]*time.Timer
	closed  bool         // the executor closed: no departures any more
	n       atomic.Int32 // len(keys), read on the acquire path without mu
}

// keyWaits is one key's waits.
type keyWaits struct {
	watchers map[*watcher]struct{}
	// queued: the executor may stand in the key's queue (an attempt of a
	// waiter joined it and none has taken the key since).
	queued bool
	// polled is when an attempt last found the executor queued, and woken
	// whether a wake (or a gap) came since: see quiet.
	polled time.Time
	woken  bool
}

// quietPoll is how often a waiter that stands in the queue, and heard of
// no release since, asks the database: the Template's other retries are
// answered "busy" without a round trip (see [waits.quiet]).
const quietPoll = time.Second

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

// maxRecentWakes bounds the wakes kept for watchers yet to come.
const maxRecentWakes = 1024

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
// after it joined the queue, not after it took the key. Keys nobody
// watches are not recorded (their waiter gave up, or has yet to watch, and
// then assumes it joined).
func (q *waits) setQueued(key string, queued bool) {
	if q.n.Load() == 0 {
		return
	}
	q.mu.Lock()
	if kw := q.keys[key]; kw != nil {
		kw.queued = queued
		kw.polled, kw.woken = time.Now(), false
	}
	q.mu.Unlock()
}

// quiet reports whether an attempt on key can be answered "busy" without a
// round trip: a watcher waits for key, the executor stood in its queue at
// an attempt less than quietPoll ago, and no wake for key (nor a gap of
// the LISTEN connection) came since. A release that hands the key to the
// executor wakes it, so a retry in between would only find it busy. The
// retry interval stays the backstop for what notifications miss, at
// quietPoll instead.
func (q *waits) quiet(key string) bool {
	if q.n.Load() == 0 {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	kw := q.keys[key]
	return kw != nil && kw.queued && !kw.woken && !kw.polled.IsZero() && time.Since(kw.polled) < quietPoll
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
		q.n.Store(int32(len(q.keys)))
	}
	kw.watchers[w] = struct{}{}
	kw.queued = true
	if t := q.leaving[key]; t != nil {
		// A waiter came back before the departure: the executor stays.
		t.Stop()
		delete(q.leaving, key)
	}
	if t, ok := q.recent[key]; ok {
		delete(q.recent, key)
		if time.Since(t) < window {
			kw.woken = true
			w.wake()
		}
	}
	if t, ok := q.recentShared[key]; ok && time.Since(t) < window {
		// A share handed to this executor may be for this waiter: it
		// queued the executor and the release outran its watch.
		w.wake()
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
	q.n.Store(int32(len(q.keys)))
	return kw.queued
}

// leaveDelay is how long a departure from a key's queue waits for a new
// watcher of the key. Waiters of one executor share its queue entry (read
// locks and permits are taken by many goroutines at once), and a waiter
// that has just queued the executor watches only once its attempt has
// returned: without the delay the last watcher of the moment leaving would
// take that waiter's entry with it.
const leaveDelay = 50 * time.Millisecond

// leaveLater runs leave after delay unless a watcher of key comes first.
func (q *waits) leaveLater(key string, delay time.Duration, leave func()) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return // Close left every queue
	}
	if q.leaving == nil {
		q.leaving = map[string]*time.Timer{}
	}
	if t := q.leaving[key]; t != nil {
		t.Stop()
	}
	var t *time.Timer
	t = time.AfterFunc(delay, func() {
		q.mu.Lock()
		mine := q.leaving[key] == t && q.keys[key] == nil
		if q.leaving[key] == t {
			delete(q.leaving, key)
		}
		q.mu.Unlock()
		if mine {
			leave()
		}
	})
	q.leaving[key] = t
}

// close wakes every watcher, as the executor closes, and drops the
// departures yet to run. It returns the keys of the queues the executor
// may stand in, for Close to leave them: those watched or about to be
// left.
func (q *waits) close() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	seen := map[string]struct{}{}
	for k, t := range q.leaving {
		t.Stop()
		delete(q.leaving, k)
		seen[k] = struct{}{}
	}
	for k, kw := range q.keys {
		kw.woken = true
		for w := range kw.watchers {
			w.wake()
		}
		seen[k] = struct{}{}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	return keys
}

// wake wakes key's watchers, or keeps the wake for a watcher to come (the
// release can outrun the reply of the attempt that queued).
func (q *waits) wake(key string, window time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if kw := q.keys[key]; kw != nil {
		kw.woken = true
		for w := range kw.watchers {
			w.wake()
		}
		return
	}
	q.recent = keep(q.recent, key, window)
}

// wakeShared wakes key's watchers after a release handed read locks or
// permits to the executor, and keeps the wake for a claim window for every
// watcher to come: the executor's waiters of shares share its queue entry,
// so the claims may be for waiters that watch a moment later.
func (q *waits) wakeShared(key string, window time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if kw := q.keys[key]; kw != nil {
		for w := range kw.watchers {
			w.wake()
		}
	}
	q.recentShared = keep(q.recentShared, key, window)
}

// keep records a wake of key at now in m, which it bounds to
// maxRecentWakes by dropping wakes older than window (or all of them).
func keep(m map[string]time.Time, key string, window time.Duration) map[string]time.Time {
	now := time.Now()
	if len(m) >= maxRecentWakes {
		for k, t := range m {
			if now.Sub(t) >= window {
				delete(m, k)
			}
		}
		if len(m) >= maxRecentWakes {
			clear(m)
		}
	}
	if m == nil {
		m = map[string]time.Time{}
	}
	m[key] = now
	return m
}

// wakeAll wakes every watcher: wakes may have been missed.
func (q *waits) wakeAll() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, kw := range q.keys {
		kw.woken = true
		for w := range kw.watchers {
			w.wake()
		}
	}
}

// wakeKey wakes w, a watcher of key, and marks key woken: the first watch
// of the executor, which may have missed a wake.
func (q *waits) wakeKey(key string, w *watcher) {
	q.mu.Lock()
	if kw := q.keys[key]; kw != nil {
		kw.woken = true
	}
	q.mu.Unlock()
	w.wake()
}
