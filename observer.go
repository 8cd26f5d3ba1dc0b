package lock4go

import (
	"context"
	"time"
)

// EventKind tells what happened to a lock.
type EventKind int

// Event kinds.
const (
	// EventAcquired: a lock was obtained (Wait, Attempts, Token set).
	EventAcquired EventKind = iota + 1
	// EventNotAcquired: the acquire loop gave up (Wait, Attempts, Err set).
	EventNotAcquired
	// EventReleased: a lock was released (Held set; Err set if the backend
	// release failed).
	EventReleased
	// EventLost: a held lock was lost (Held, Err set).
	EventLost
	// EventRenewFailed: one renewal failed and will be retried (Err set).
	EventRenewFailed
	// EventExpired: a fixed lease (WithExpire) ended before release, as
	// planned (Held, Err set). The holder sees ErrLockLost all the same.
	EventExpired
)

// String returns the kind's name.
func (k EventKind) String() string {
	switch k {
	case EventAcquired:
		return "acquired"
	case EventNotAcquired:
		return "not_acquired"
	case EventReleased:
		return "released"
	case EventLost:
		return "lost"
	case EventRenewFailed:
		return "renew_failed"
	case EventExpired:
		return "expired"
	}
	return "unknown"
}

// Event describes one thing that happened to a lock.
type Event struct {
	Kind     EventKind
	Executor string
	Key      string
	Token    int64
	Attempts int
	// Wait is the time spent acquiring.
	Wait time.Duration
	// Held is the time from acquisition to release or loss.
	Held time.Duration
	Err  error
}

// Observer receives lock events, for metrics and tracing. Observe is called
// synchronously on the lock's path and must be fast and safe for concurrent
// use. ctx is the caller's context for acquisitions and releases (so spans
// can join the caller's trace) and a background context for events the
// watchdog raises. A lost or expired lock's Done channel closes (and its
// contexts are cancelled) before its event is observed, so that no
// observer delays the signal.
type Observer interface {
	Observe(ctx context.Context, e Event)
}

// ObserverFunc adapts a function to an [Observer].
type ObserverFunc func(ctx context.Context, e Event)

// Observe calls f(ctx, e).
func (f ObserverFunc) Observe(ctx context.Context, e Event) { f(ctx, e) }

type nopObserver struct{}

func (nopObserver) Observe(context.Context, Event) {}
