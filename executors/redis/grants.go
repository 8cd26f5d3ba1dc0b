package redis

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/lock4go/lock4go/internal/kit"
)

// waits is what the executor knows of its callers' waits ([kit.Waits]:
// the watchers of each key, its place in the key's queue, the wakes that
// came before any watcher) and the direct grants that wakes announced.
type waits struct {
	kit.Waits
	gmu sync.Mutex
	// grants holds the direct grants that wakes announced, by key, for the
	// next attempt on the key to confirm (see takeGrant).
	grants map[string]grantNote
	ng     atomic.Int32 // len(grants), read on the acquire path without gmu
}

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
