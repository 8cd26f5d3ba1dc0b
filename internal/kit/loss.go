package kit

import (
	"sync"
	"sync/atomic"
)

// Loss is the loss of one lease: its cause, set once, and the functions
// registered by the lease's AfterLost (executor.Lease). The zero value is
// a lease not lost, and costs nothing until AfterLost is called. It is
// safe for concurrent use.
type Loss struct {
	lost atomic.Bool // read without mu on Renew and Release

	mu    sync.Mutex
	cause error
	fs    []lossFunc
	next  uint64
}

// lossFunc is one function registered with After.
type lossFunc struct {
	id uint64
	f  func()
}

// After implements executor.Lease.AfterLost: f runs once, in a goroutine
// of its own, when Mark is called, or at once if it was. stop unregisters
// f and reports whether it did so before f started.
func (s *Loss) After(f func()) (stop func() bool) {
	s.mu.Lock()
	if s.cause != nil {
		s.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	id := s.next
	s.next++
	s.fs = append(s.fs, lossFunc{id: id, f: f})
	s.mu.Unlock()
	return func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, lf := range s.fs {
			if lf.id == id {
				s.fs = append(s.fs[:i], s.fs[i+1:]...)
				return true
			}
		}
		return false
	}
}

// Mark records the loss with cause (non-nil) and starts the registered
// functions. Only the first call counts; it reports whether this was it.
func (s *Loss) Mark(cause error) bool {
	s.mu.Lock()
	if s.cause != nil {
		s.mu.Unlock()
		return false
	}
	s.cause = cause
	s.lost.Store(true)
	fs := s.fs
	s.fs = nil
	s.mu.Unlock()
	for _, lf := range fs {
		go lf.f()
	}
	return true
}

// Lost reports whether Mark was called. It costs an atomic load.
func (s *Loss) Lost() bool { return s.lost.Load() }

// Cause returns the cause given to Mark, or nil.
func (s *Loss) Cause() error {
	if !s.lost.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cause
}
