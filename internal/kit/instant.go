package kit

import (
	"sync/atomic"
	"time"
)

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
