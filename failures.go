package lock4go

import (
	"sync"
	"time"
)

// FailureKind says what went wrong in a [Failure]. It is not an
// [EventKind], though each failure is recorded with the event that reports
// it: an event says what happened to a lock, good or bad; a failure kind
// says what an operator acts on, which events do not tell apart (an
// [EventNotAcquired] is a busy key, [FailureNotAcquired], or a backend
// down, [FailureBackend]; an [EventReleased] with an error is
// [FailureRelease]). It is a string because /debug/locks shows it as is.
type FailureKind string

// Failure kinds.
const (
	// FailureNotAcquired: the key stayed busy for the acquire timeout, a
	// TryLock found it busy, or the caller's context ended the wait.
	FailureNotAcquired FailureKind = "not_acquired"
	// FailureBackend: an acquisition failed because the backend did not
	// answer, or was refused as misconfigured.
	FailureBackend FailureKind = "backend"
	// FailureLost: a held lock was lost before it was released.
	FailureLost FailureKind = "lost"
	// FailureExpired: a fixed lease ([WithExpire]) ran out before release.
	FailureExpired FailureKind = "expired"
	// FailureRenew: one renewal failed; it is retried until the lease ends.
	FailureRenew FailureKind = "renew_failed"
	// FailureRelease: a release failed on the backend; the lease ends by
	// itself.
	FailureRelease FailureKind = "release_failed"
)

// Failure is one recent failure of a Template, as [Template.Snapshot]
// reports it.
type Failure struct {
	Time     time.Time
	Kind     FailureKind
	Executor string
	Key      string
	// Err is the error the caller got or the watchdog saw; it may name
	// backend addresses, never a request's body.
	Err error
}

// failureLog keeps the latest failures in two fixed rings, so that a burst
// of busy keys (routine under contention) cannot push the rare incidents
// (losses, backend errors) out of view. Recording allocates nothing.
type failureLog struct {
	mu        sync.Mutex
	routine   failureRing // not acquired because busy, fixed leases expired
	incidents failureRing // everything else
}

// failureRingSize is how many failures of each class are kept.
const failureRingSize = 32

type failureRing struct {
	buf  [failureRingSize]Failure
	next int
	n    int
}

// add records a failure that happened now.
func (l *failureLog) add(kind FailureKind, exec, key string, err error) {
	f := Failure{Time: time.Now(), Kind: kind, Executor: exec, Key: key, Err: err}
	l.mu.Lock()
	r := &l.incidents
	if kind == FailureNotAcquired || kind == FailureExpired {
		r = &l.routine
	}
	r.buf[r.next] = f
	r.next = (r.next + 1) % failureRingSize
	r.n = min(r.n+1, failureRingSize)
	l.mu.Unlock()
}

// list returns the recorded failures, in no particular order.
func (l *failureLog) list() []Failure {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Failure, 0, l.routine.n+l.incidents.n)
	out = append(out, l.routine.buf[:l.routine.n]...)
	return append(out, l.incidents.buf[:l.incidents.n]...)
}
