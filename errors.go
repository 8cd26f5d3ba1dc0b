package lock4go

import (
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// The sentinel errors, declared once in package executor (which says what
// each reports) and exported here under the same names, so that errors from
// executors and from the Template match alike with [errors.Is].
var (
	// ErrNotAcquired is [executor.ErrNotAcquired].
	ErrNotAcquired = executor.ErrNotAcquired
	// ErrLockNotHeld is [executor.ErrLockNotHeld].
	ErrLockNotHeld = executor.ErrLockNotHeld
	// ErrLockLost is [executor.ErrLockLost].
	ErrLockLost = executor.ErrLockLost
	// ErrUnknownExecutor is [executor.ErrUnknownExecutor].
	ErrUnknownExecutor = executor.ErrUnknownExecutor
	// ErrInvalidKey is [executor.ErrInvalidKey].
	ErrInvalidKey = executor.ErrInvalidKey
	// ErrBackend is [executor.ErrBackend].
	ErrBackend = executor.ErrBackend
	// ErrInvalidConfig is [executor.ErrInvalidConfig].
	ErrInvalidConfig = executor.ErrInvalidConfig
	// ErrClosed is [executor.ErrClosed].
	ErrClosed = executor.ErrClosed
)

// AcquireError is returned when a lock was not obtained. It wraps
// [ErrNotAcquired] (busy; plus the context's cause when the caller's context
// ended the wait) or [ErrBackend] (plus the backend's last error).
type AcquireError struct {
	// Key is the lock key.
	Key string
	// Executor is the name of the executor that was asked.
	Executor string
	// Attempts is the number of acquisition attempts made on the backend:
	// 0 when the call gave up in the Template's local queue, behind other
	// callers of this process, before it could make one.
	Attempts int
	// Waited is how long the acquisition ran, local queue included.
	Waited time.Duration

	err   error
	queue *queueError // set when the call gave up in the local queue
}

// Error implements error. It says what happened: how many attempts the
// backend saw and for how long, or, when it saw none, that the call gave
// up in the local queue and behind how many callers of this process.
func (e *AcquireError) Error() string {
	waited := e.Waited.Round(time.Microsecond)
	switch {
	case e.Attempts == 1:
		return fmt.Sprintf("lock4go: lock %q on %s: 1 attempt in %v: %v", e.Key, e.Executor, waited, e.err)
	case e.Attempts > 1:
		return fmt.Sprintf("lock4go: lock %q on %s: %d attempts in %v: %v", e.Key, e.Executor, e.Attempts, waited, e.err)
	case e.queue != nil && e.queue.try:
		return fmt.Sprintf("lock4go: lock %q on %s: no attempt on the backend: %s of this process held or awaited the key, and a call that does not wait does not queue (%v): %v",
			e.Key, e.Executor, callers(e.queue.ahead), waited, e.err)
	case e.queue != nil:
		return fmt.Sprintf("lock4go: lock %q on %s: no attempt on the backend: gave up after %v queued behind %s of this process: %v",
			e.Key, e.Executor, waited, callers(e.queue.ahead), e.err)
	}
	return fmt.Sprintf("lock4go: lock %q on %s: no attempt on the backend after %v: %v", e.Key, e.Executor, waited, e.err)
}

// Unwrap returns the wrapped sentinel and cause.
func (e *AcquireError) Unwrap() error { return e.err }
