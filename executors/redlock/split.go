package redlock

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"
)

// maxSplitBackoff bounds the random pause of a waiting attempt after a
// split (see splits).
const maxSplitBackoff = 10 * time.Millisecond

// splits remembers the keys whose last attempt in this executor was a
// split: it got grants, but not a majority, while other owners held the
// rest. Two waiters that split the masters hand each other their grants
// when they give them back (each master's queue serves its longest
// waiter), and if they try again at once they split again, mirrored, for
// as long as they both wait; with a master down this happens whenever the
// masters' queues order them differently. The next waiting attempt on such
// a key first pauses for a random time below maxSplitBackoff (Redlock's
// random retry delay), so that one of them goes first and takes the
// majority.
type splits struct {
	mu   sync.Mutex
	keys map[string]time.Time // key → end of its pause
}

// record notes a split on key. Pauses that ended are forgotten once a few
// have piled up: a key whose waiter gave up after a split is never paused
// on again, and must not stay in the map.
func (s *splits) record(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.keys == nil {
		s.keys = make(map[string]time.Time)
	}
	if len(s.keys) >= 64 {
		for k, end := range s.keys {
			if end.Before(now) {
				delete(s.keys, k)
			}
		}
	}
	s.keys[key] = now.Add(rand.N(maxSplitBackoff))
}

// pause waits out key's pause, if any, or until ctx ends or until (when
// not zero); it forgets the pause.
func (s *splits) pause(ctx context.Context, key string, until time.Time) {
	s.mu.Lock()
	end, ok := s.keys[key]
	delete(s.keys, key)
	s.mu.Unlock()
	if !ok {
		return
	}
	if !until.IsZero() && until.Before(end) {
		end = until
	}
	d := time.Until(end)
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
