package queued

import "time"

// Ask is a waiter's request to the backend as [Waits] knows it: when it
// was sent, and how many wakes the executor had had by then.
type Ask struct {
	at    time.Time
	wakes uint64
}

// Ask returns the request of a waiter sent at now, for [Waits.Joined].
func (q *Waits) Ask(now time.Time) Ask { return Ask{at: now, wakes: q.wakes.Load()} }

// Joined records that the attempt a (of a waiter of key) queued the
// executor while nobody watched key. The watch that follows
// ([Waits.Add]) counts a as its waiter's poll when no wake of any key came
// since a was sent: the key is then [Waits.Quiet] from a on, and the
// waiter's first retry needs no round trip (before, it asked the backend
// again at once: a second round trip for every acquisition that waited
// past one retry interval). A wake since a leaves the key unpolled, as
// without Joined: the next attempt asks. Call it with a queued answer, in
// place of [Waits.SetQueued]; a key that is watched takes the answer as
// SetQueued does.
func (q *Waits) Joined(key string, a Ask) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if kw := q.keys[key]; kw != nil {
		kw.queued = true
		q.setQueuedLocked(kw)
		return
	}
	if q.joined == nil || len(q.joined) >= maxRecentWakes {
		// Waiters that gave up before they watched leave entries; a
		// dropped one costs its waiter a round trip, never a wake.
		q.joined = map[string]Ask{}
	}
	q.joined[key] = a
	q.count()
}

// countJoined makes the attempt recorded by Joined for key, if any, the
// poll of kw, which a watcher just joined; q.mu is held.
func (q *Waits) countJoined(key string, kw *keyWaits) {
	a, ok := q.joined[key]
	if !ok {
		return
	}
	delete(q.joined, key)
	q.count()
	if kw.polled.IsZero() && kw.asked.IsZero() && a.wakes == q.wakes.Load() {
		kw.polled, kw.woken = a.at, false
	}
}
