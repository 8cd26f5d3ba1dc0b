package queued

import (
	"sync"
	"sync/atomic"
	"time"
)

// LeaveDelay is how long a departure from a key's queue on the backend
// waits for a new watcher of the key ([Waits.LeaveLater]). Waiters of one
// executor share its queue entry: read locks and permits are taken by many
// goroutines at once, and a waiter that has just queued the executor
// watches only once its attempt has returned. Without the delay the last
// watcher of the moment leaving would take that waiter's entry with it,
// and the waiter would miss its wake (and wait a retry interval).
const LeaveDelay = 50 * time.Millisecond

// maxRecentWakes bounds the wakes kept for watchers yet to come.
const maxRecentWakes = 1024

// Waits is what an executor whose waiters queue on the backend (the
// WaitQueued model: Redis, PostgreSQL) knows of its callers' waits: the
// watchers of each key, whether the executor may still stand in the key's
// queue, when a waiter last asked the backend, and the wakes that came
// before any watcher. The zero Waits is ready to use; it is safe for
// concurrent use.
type Waits struct {
	mu     sync.Mutex
	keys   map[string]*keyWaits
	recent map[string]time.Time // wakes no watcher took yet
	// recentShared holds the latest hand-off of shares of each key, for
	// every watcher to come within a claim window.
	recentShared map[string]time.Time
	// ahead holds the keys for which a holder of this executor queued it
	// again for its followers, with no wake since.
	ahead map[string]struct{}
	// leaving holds the departures from keys' queues that wait out
	// LeaveDelay (see LeaveLater).
	leaving map[string]*time.Timer
	closed  bool         // the executor closed: no departures any more
	n       atomic.Int32 // len(keys)+len(ahead)+len(joined), read on the acquire path without mu
	// joined holds the attempts that queued the executor for a key nobody
	// watched yet, for the watch to come to count as its poll (see
	// Joined); wakes counts the wakes, of any key, so that the watch can
	// tell whether one came since the attempt asked.
	joined map[string]Ask
	wakes  atomic.Uint64
}

// keyWaits is one key's waits.
type keyWaits struct {
	watchers map[*Watcher]struct{}
	// queued: the executor may stand in the key's queue (an attempt of a
	// waiter joined it and none has taken the key since).
	queued bool
	// polled is when a waiter last asked the backend and had its answer
	// (zero: none has since the key was first watched); woken: a wake (or
	// a gap of the wake channel) came since. See Quiet.
	polled time.Time
	woken  bool
	// asked is when the attempt in flight asked (zero: none), and
	// wokeAsking whether a wake came since: its answer makes them polled
	// and woken (see PolledAt).
	asked      time.Time
	wokeAsking bool
}

// markWoken records a wake of the key, for Quiet and for the attempt in
// flight.
func (kw *keyWaits) markWoken() { kw.woken, kw.wokeAsking = true, true }

// Watcher is one WatchRelease call: its channel receives a value, without
// blocking the waker, when the key may have been handed to the executor.
type Watcher struct {
	ch chan struct{}
}

// NewWatcher returns a watcher whose channel holds one pending wake.
func NewWatcher() *Watcher { return &Watcher{ch: make(chan struct{}, 1)} }

// C returns the channel w is woken on.
func (w *Watcher) C() <-chan struct{} { return w.ch }

// wake signals w without blocking.
func (w *Watcher) wake() {
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

// Active reports whether any key is watched or queued again for
// followers; it takes no lock.
func (q *Waits) Active() bool { return q.n.Load() > 0 }

// Queued reports whether the executor may stand in key's queue.
func (q *Waits) Queued(key string) bool {
	if !q.Active() {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	kw := q.keys[key]
	return kw != nil && kw.queued
}

// SetQueued records the answer to an attempt of a waiter on key: queued
// after it joined the queue, not after it took the key; the poll the
// attempt recorded with [Waits.PolledAt] counts from now on. Keys nobody
// watches are not recorded (their waiter gave up, or has yet to watch, and
// then assumes it joined).
func (q *Waits) SetQueued(key string, queued bool) {
	if !q.Active() {
		return
	}
	q.mu.Lock()
	if kw := q.keys[key]; kw != nil {
		kw.queued = queued
		q.setQueuedLocked(kw)
	}
	if _, ok := q.joined[key]; ok && !queued {
		delete(q.joined, key)
		q.count()
	}
	q.mu.Unlock()
}

// setQueuedLocked takes the answer of the attempt in flight on kw as its
// poll, as of when it asked; q.mu is held.
func (q *Waits) setQueuedLocked(kw *keyWaits) {
	if !kw.asked.IsZero() {
		kw.polled, kw.woken = kw.asked, kw.wokeAsking
		kw.asked = time.Time{}
	}
}

// Add registers w as a watcher of key, after an attempt that queued the
// executor. It wakes w at once if a wake for key came within window. The
// key is not [Waits.Quiet] until a waiter asks the backend again
// ([Waits.PolledAt]), unless the executor said when the attempt that
// queued asked ([Waits.Joined]) and no wake came since: that attempt is
// then the poll.
func (q *Waits) Add(key string, w *Watcher, window time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.keys == nil {
		q.keys = map[string]*keyWaits{}
	}
	kw := q.keys[key]
	if kw == nil {
		kw = &keyWaits{watchers: map[*Watcher]struct{}{}}
		q.keys[key] = kw
		q.count()
	}
	kw.watchers[w] = struct{}{}
	kw.queued = true
	q.countJoined(key, kw)
	if t := q.leaving[key]; t != nil {
		// A waiter came back before the departure: the executor stays.
		t.Stop()
		delete(q.leaving, key)
	}
	if t, ok := q.recent[key]; ok {
		delete(q.recent, key)
		if time.Since(t) < window {
			kw.markWoken()
			w.wake()
		}
	}
	if t, ok := q.recentShared[key]; ok && time.Since(t) < window {
		// A share handed to this executor may be for this waiter: it
		// queued the executor and the release outran its watch.
		kw.markWoken()
		w.wake()
	}
}

// Remove unregisters w. It reports whether w was key's last watcher and
// the executor may still stand in key's queue: then nobody here will take
// the claim a release may give it.
func (q *Waits) Remove(key string, w *Watcher) (leftQueued bool) {
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
func (q *Waits) count() { q.n.Store(int32(len(q.keys) + len(q.ahead) + len(q.joined))) }

// LeaveLater runs leave after delay unless a watcher of key comes first,
// or the executor closes.
func (q *Waits) LeaveLater(key string, delay time.Duration, leave func()) {
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

// Close wakes every watcher, as the executor closes, and drops the
// departures yet to run. It returns the keys of the queues the executor
// may stand in, for the executor's Close to leave them: those watched,
// about to be left, or queued again for followers.
func (q *Waits) Close() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.wakes.Add(1)
	seen := map[string]struct{}{}
	for k, t := range q.leaving {
		t.Stop()
		delete(q.leaving, k)
		seen[k] = struct{}{}
	}
	for k, kw := range q.keys {
		kw.markWoken()
		for w := range kw.watchers {
			w.wake()
		}
		seen[k] = struct{}{}
	}
	for k := range q.ahead {
		seen[k] = struct{}{}
	}
	clear(q.ahead)
	q.count()
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	return keys
}

// SetAhead records that a holder of key queued the executor again for its
// followers.
func (q *Waits) SetAhead(key string) {
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

// TakeAhead reports, once, whether the executor stands in key's queue on
// behalf of a follower with no wake since: the key is then still busy.
func (q *Waits) TakeAhead(key string) bool {
	if !q.Active() {
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

// Quiet reports whether a waiting attempt on key may be answered "busy"
// without a round trip: the executor stands in key's queue, a waiter asked
// the backend and had its answer since the key was first watched, asked
// less than every ago, and no wake came since it asked. A release hands the key to the queue's head and wakes it, so until a
// wake comes the key is someone else's; asking the backend once per every
// still catches what wakes nobody (a lease that expired, a claim that
// lapsed, a release by another program).
func (q *Waits) Quiet(key string, now time.Time, every time.Duration) bool {
	if !q.Active() {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	kw := q.keys[key]
	return kw != nil && kw.queued && !kw.woken && !kw.polled.IsZero() && now.Sub(kw.polled) < every
}

// PolledAt records that a waiter of key asks the backend at now, before
// the attempt's round trip. The poll counts for [Waits.Quiet] once the
// answer is recorded ([Waits.SetQueued]), as of now and with only the wakes
// that came since: a wake that arrives while the attempt runs is kept for
// the next one, and an attempt that got no answer (a backend error) leaves
// the key as it was.
func (q *Waits) PolledAt(key string, now time.Time) {
	if !q.Active() {
		return
	}
	q.mu.Lock()
	if kw := q.keys[key]; kw != nil {
		kw.asked, kw.wokeAsking = now, false
	}
	q.mu.Unlock()
}

// Wake wakes key's watchers, or keeps the wake for a watcher to come within
// window (the release can outrun the reply of the attempt that queued).
func (q *Waits) Wake(key string, window time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.wakes.Add(1)
	if _, ok := q.ahead[key]; ok {
		delete(q.ahead, key)
		q.count()
	}
	if kw := q.keys[key]; kw != nil {
		kw.markWoken()
		for w := range kw.watchers {
			w.wake()
		}
		return
	}
	q.recent = keep(q.recent, key, window)
}

// WakeShared wakes key's watchers after a release handed read locks or
// permits to the executor, and keeps the wake for window for every watcher
// to come: the executor's waiters of shares share its queue entry, so the
// claims may be for waiters that watch a moment later.
func (q *Waits) WakeShared(key string, window time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.wakes.Add(1)
	if kw := q.keys[key]; kw != nil {
		kw.markWoken()
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

// WakeAll wakes every watcher: wakes may have been missed (the wake
// channel reconnected).
func (q *Waits) WakeAll() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.wakes.Add(1)
	clear(q.ahead)
	q.count()
	for _, kw := range q.keys {
		kw.markWoken()
		for w := range kw.watchers {
			w.wake()
		}
	}
}

// WakeKey wakes w, a watcher of key, and marks key woken: the first watch
// of the executor, which may have missed a wake.
func (q *Waits) WakeKey(key string, w *Watcher) {
	q.mu.Lock()
	q.wakes.Add(1)
	if kw := q.keys[key]; kw != nil {
		kw.markWoken()
	}
	q.mu.Unlock()
	w.wake()
}
