package jobs

import (
	"context"
	"time"
)

// Event describes one tick of a job, once its outcome is known.
type Event struct {
	// Name is the job's name.
	Name string
	// Executor names the executor that holds, or was asked for, the lock.
	Executor string
	// Outcome, Err and Token are those of the [Result].
	Outcome Outcome
	Err     error
	Token   int64
	// Duration is how long the function ran (Ran and Failed).
	Duration time.Duration
	// HeldPastEnd is how long the job stays taken after the function
	// returned: the at-least-for end less the function's end (0 when it
	// ran longer than AtLeastFor).
	HeldPastEnd time.Duration
}

// Observer is told of every tick of every job of a [Runner]: for metrics
// and logs. Observe is called synchronously, after the lock was released
// or set to end at its at-least-for end; it must be fast and safe for
// concurrent use. ctx is the context the tick ran with.
type Observer interface {
	Observe(ctx context.Context, e Event)
}

// ObserverFunc adapts a function to an [Observer].
type ObserverFunc func(ctx context.Context, e Event)

// Observe calls f(ctx, e).
func (f ObserverFunc) Observe(ctx context.Context, e Event) { f(ctx, e) }
