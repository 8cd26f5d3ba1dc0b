package lock4go

import (
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// Sentinel errors, the same values as the executor package's, so errors from
// executors and from the Template match alike with [errors.Is].
var (
	// ErrNotAcquired reports that the lock is held by someone else and the
	// acquire timeout, the context, or a TryLock's single attempt ended first.
	ErrNotAcquired = executor.ErrNotAcquired

	// ErrLockNotHeld reports a Release of a lock this owner no longer holds
	// (released already, expired or lost). Nothing of another owner is touched.
	ErrLockNotHeld = executor.ErrLockNotHeld

	// ErrLockLost reports that a held lock was lost before it was released.
	// [Lock.Err] returns it, and the context of [Template.Do] is cancelled
	// with it as the cause.
	ErrLockLost = executor.ErrLockLost

	// ErrUnknownExecutor reports an executor name that is not registered.
	ErrUnknownExecutor = executor.ErrUnknownExecutor

	// ErrInvalidKey reports a key that cannot be locked: empty, longer than
	// [MaxKeyLen], not valid UTF-8, or containing NUL.
	ErrInvalidKey = executor.ErrInvalidKey

	// ErrBackend reports that the backend could not answer within the acquire
	// timeout; the last cause is wrapped beside it.
	ErrBackend = executor.ErrBackend

	// ErrInvalidConfig reports an invalid [Config], [LockOption] or argument.
	ErrInvalidConfig = executor.ErrInvalidConfig

	// ErrClosed reports that the executor was closed: an acquisition on
	// it fails at once with ErrClosed and [ErrBackend] (also one waiting
	// when Close began), and a lock it held is lost: [Lock.Err] wraps
	// [ErrLockLost] and ErrClosed.
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
