package kit

import "sync"

// Held is the set of leases an executor holds, for its Close: Close takes
// them all at once, and an acquisition that completes after that is
// refused, so that no lease outlives Close unseen. The zero value is
// ready to use. It is safe for concurrent use.
type Held[L comparable] struct {
	mu     sync.Mutex
	m      map[L]struct{}
	closed bool
}

// Add registers l, a lease just acquired. It reports false, without
// registering l, once Close has run: the caller must then release l
// itself and fail the acquisition with executor.ErrClosed.
func (h *Held[L]) Add(l L) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	if h.m == nil {
		h.m = map[L]struct{}{}
	}
	h.m[l] = struct{}{}
	return true
}

// Remove unregisters l: it was released, or found gone.
func (h *Held[L]) Remove(l L) {
	h.mu.Lock()
	delete(h.m, l)
	h.mu.Unlock()
}

// Len returns the number of leases registered.
func (h *Held[L]) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.m)
}

// Close refuses registrations from now on and returns the leases
// registered, forgetting them. Later calls return nothing.
func (h *Held[L]) Close() []L {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	ls := make([]L, 0, len(h.m))
	for l := range h.m {
		ls = append(ls, l)
	}
	h.m = nil
	return ls
}
