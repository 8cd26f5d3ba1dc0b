package redis

import "time"

// grantNote is a direct grant a wake announced: the key's value
// ("lock4go:claim:<member>\x00<token><flags>"), its "<token><flags>", and
// when the wake came.
type grantNote struct {
	value, granted string
	at             time.Time
}

// grant records the direct grant of key that a wake announced, with its
// "<token><flags>", and wakes key's watchers (or keeps the wake for a
// watcher to come).
func (q *waits) grant(key, value, granted string, window time.Duration) {
	q.mu.Lock()
	if q.grants == nil || len(q.grants) >= maxRecentWakes {
		// Grants nobody confirmed pile up only while waiters die or give
		// up; forgetting them costs a confirmation its fast path, never a
		// lock (the attempt finds the grant on the server).
		q.grants = map[string]grantNote{}
	}
	q.grants[key] = grantNote{value: value, granted: granted, at: time.Now()}
	q.ng.Store(int32(len(q.grants)))
	q.mu.Unlock()
	q.wake(key, window)
}

// takeGrant returns, once, the direct grant of key that a wake announced
// within window, for the attempt that confirms it.
func (q *waits) takeGrant(key string, window time.Duration) (grantNote, bool) {
	if q.ng.Load() == 0 {
		return grantNote{}, false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	g, ok := q.grants[key]
	if !ok {
		return grantNote{}, false
	}
	delete(q.grants, key)
	q.ng.Store(int32(len(q.grants)))
	return g, time.Since(g.at) < window
}
