package lock4go

import (
	"fmt"
	"sync"
)

// kind names a lock's kind in errors.
func kindName(shared bool, permits int) string {
	switch {
	case permits > 0:
		return fmt.Sprintf("a semaphore of %d permits", permits)
	case shared:
		return "a read lock"
	}
	return "a write lock"
}

// reentrant checks that a call with options o may re-enter h, which its
// context carries: a read or write lock inside a write lock, a read lock
// inside a read lock, a permit inside a permit of the same semaphore. A
// write lock inside a read lock would be an upgrade, which waits for every
// reader, itself included: refused, never a deadlock.
func (h *held) reentrant(o lockOptions) error {
	switch {
	case h.permits != o.permits:
		return fmt.Errorf("%w: %q is held as %s in this context, asked as %s",
			ErrInvalidConfig, h.key, kindName(h.shared, h.permits), kindName(o.shared, o.permits))
	case h.shared && !o.shared:
		return fmt.Errorf("%w: %q: a write lock inside a read lock of the same key (an upgrade) would wait for itself; take the write lock first",
			ErrInvalidConfig, h.key)
	}
	return nil
}

// supports checks that r's executor implements the kind o asks for.
func (r *registered) supports(o lockOptions) error {
	switch {
	case o.shared && !r.caps.SharedLocks:
		return fmt.Errorf("%w: executor %q has no read locks", ErrInvalidConfig, r.e.Name())
	case o.permits > 0 && !r.caps.Semaphores:
		return fmt.Errorf("%w: executor %q has no semaphores", ErrInvalidConfig, r.e.Name())
	}
	return nil
}

// kind returns h's kind as [HeldLock.Kind] names it.
func (h *held) kind() string {
	switch {
	case h.permits > 0:
		return "permit"
	case h.shared:
		return "read"
	}
	return "mutex"
}

// sharedHolds are the held read locks and permits, which take no turn in
// the local queue, for Snapshot.
type sharedHolds struct {
	mu sync.Mutex
	m  map[*held]struct{}
}

func (s *sharedHolds) add(h *held) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[*held]struct{}{}
	}
	s.m[h] = struct{}{}
	s.mu.Unlock()
}

func (s *sharedHolds) remove(h *held) {
	s.mu.Lock()
	delete(s.m, h)
	s.mu.Unlock()
}

// view appends the held read locks and permits to holders.
func (s *sharedHolds) view(holders []*held) []*held {
	s.mu.Lock()
	defer s.mu.Unlock()
	for h := range s.m {
		holders = append(holders, h)
	}
	return holders
}
