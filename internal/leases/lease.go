package leases

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// What every executor's lease is made of: its local end, an [Instant]; its
// loss, a [Loss]; and its place among the leases Close ends, a [Held] set
// ended by [EndAll].

// origin is the instant every [Instant] counts from: a reading of
// time.Now, so that Instants keep the monotonic clock.
var origin = time.Now()

// Instant is a point in time that is stored and loaded atomically, on the
// monotonic clock: it holds the nanoseconds since a reading of time.Now
// taken when the process started, never Unix nanoseconds (which follow the
// wall clock, and so its steps). The zero value is that process start. It
// is safe for concurrent use.
type Instant struct{ ns atomic.Int64 }

// offset returns t as nanoseconds since origin. t must carry a monotonic
// reading (time.Now, and times derived from it with Add) for the result to
// ignore wall-clock steps.
func offset(t time.Time) int64 { return int64(t.Sub(origin)) }

// Store sets the instant to t.
func (i *Instant) Store(t time.Time) { i.ns.Store(offset(t)) }

// Advance sets the instant to t if t is later, and reports whether it did.
func (i *Instant) Advance(t time.Time) bool {
	n := offset(t)
	for {
		cur := i.ns.Load()
		if n <= cur {
			return false
		}
		if i.ns.CompareAndSwap(cur, n) {
			return true
		}
	}
}

// Load returns the instant as a time.Time with a monotonic reading.
func (i *Instant) Load() time.Time { return origin.Add(time.Duration(i.ns.Load())) }

// Passed reports whether now is at or after the instant: one atomic load.
func (i *Instant) Passed(now time.Time) bool { return offset(now) >= i.ns.Load() }

// Loss is the loss of one lease: its cause, set once, and the functions
// waiting for it (registered by the lease's AfterLost, executor.Lease, or
// by OnLoss). The zero value is a lease not lost, and costs nothing until
// a function is registered; the first one takes no allocation. It is safe
// for concurrent use.
type Loss struct {
	lost atomic.Bool // read without mu on Renew and Release

	mu    sync.Mutex
	cause error
	fs    []lossFunc
	first [1]lossFunc // fs's first backing array
	next  uint64
}

// lossFunc is one function waiting for the loss: f is a Listener (After's
// function as a listenerFunc), or a func(cause error) (OnLoss's). One
// interface for both keeps a Loss, and the leases and holds that embed it,
// 8 bytes smaller.
type lossFunc struct {
	id uint64
	f  any
}

func (lf lossFunc) run(cause error) {
	switch f := lf.f.(type) {
	case func(cause error):
		f(cause)
	case Listener:
		f.LeaseLost()
	}
}

// listenerFunc is a function as a Listener: a func value is one pointer,
// so it takes no allocation to become one.
type listenerFunc func()

func (f listenerFunc) LeaseLost() { f() }

// Listener is told of a loss: executor.LossListener.
type Listener interface{ LeaseLost() }

// Notify implements executor.LossNotifier's NotifyLost: ln.LeaseLost runs
// as After's function would, once, in a goroutine of its own when Mark is
// called (or at the call of End's function). When the loss was recorded
// already it registers nothing and reports false. Stop it with
// [Loss.Forget]. It allocates nothing beyond the first registration's
// storage, which the zero Loss holds.
func (s *Loss) Notify(ln Listener) (id uint64, ok bool) {
	return s.add(lossFunc{f: ln})
}

// After implements executor.Lease.AfterLost: f runs once, in a goroutine
// of its own, when Mark is called (or at the call of End's function), or
// at once if the loss was recorded. stop unregisters f and reports whether
// it did so before f started.
func (s *Loss) After(f func()) (stop func() bool) {
	id, ok := s.add(lossFunc{f: listenerFunc(f)})
	if !ok {
		go f()
		return func() bool { return false }
	}
	return func() bool { return s.Forget(id) }
}

// OnLoss registers f to run with the cause when the loss is recorded, as
// After does, and returns the id to [Loss.Forget] it with. When the loss
// was recorded already it registers nothing and reports false: the caller
// runs f itself if it must.
func (s *Loss) OnLoss(f func(cause error)) (id uint64, ok bool) {
	return s.add(lossFunc{f: f})
}

// add registers lf unless the loss was recorded.
func (s *Loss) add(lf lossFunc) (id uint64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cause != nil {
		return 0, false
	}
	lf.id = s.next
	s.next++
	if s.fs == nil {
		s.fs = s.first[:0]
	}
	s.fs = append(s.fs, lf)
	return lf.id, true
}

// Forget unregisters the function registered under id and reports whether
// it did so before the loss started it.
func (s *Loss) Forget(id uint64) bool {
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

// Mark records the loss with cause (non-nil) and starts the registered
// functions, each in a goroutine of its own. Only the first call of Mark
// or End counts; it reports whether this was it.
func (s *Loss) Mark(cause error) bool {
	fs, first := s.take(cause)
	for _, lf := range fs {
		go lf.run(cause)
	}
	return first
}

// End records the loss with cause (non-nil), as Mark does, and returns a
// function that runs the registered functions one after the other, for
// the caller to call on its own goroutine once it holds no lock they may
// need: so that they have run when the caller's own report of the loss
// goes out. When the loss was recorded already, run does nothing.
func (s *Loss) End(cause error) (run func()) {
	fs, first := s.take(cause)
	if !first || len(fs) == 0 {
		return func() {}
	}
	return func() {
		for _, lf := range fs {
			lf.run(cause)
		}
	}
}

// take records the loss with cause and returns the registered functions,
// or reports that the loss was recorded already.
func (s *Loss) take(cause error) (fs []lossFunc, first bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cause != nil {
		return nil, false
	}
	s.cause = cause
	s.lost.Store(true)
	fs, s.fs = s.fs, nil
	return fs, true
}

// Lost reports whether the loss was recorded (Mark or End). It costs an atomic load.
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

// Take is Close for an executor's Close: it refuses registrations from
// now on, records the loss of every lease registered with cause (loss
// returns a lease's [Loss]; its functions start), and returns them,
// forgetting them, for the executor to release.
func (h *Held[L]) Take(cause error, loss func(L) *Loss) []L {
	ls := h.Close()
	for _, l := range ls {
		loss(l).Mark(cause)
	}
	return ls
}

// maxEnders bounds the goroutines of one EndAll.
const maxEnders = 16

// EndAll runs end on every item of items, a few at a time, all under one
// context that ends after timeout, and returns their errors joined: Close
// releases the leases it ends as a whole within its bound, however many
// there are. Items not reached when the context ends are still passed to
// end, with that ended context, so that each is accounted for.
func EndAll[T any](timeout time.Duration, items []T, end func(ctx context.Context, item T) error) error {
	if len(items) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	errs := make([]error, len(items))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(len(items), maxEnders) {
		wg.Go(func() {
			for i := range next {
				errs[i] = end(ctx, items[i])
			}
		})
	}
	for i := range items {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}
