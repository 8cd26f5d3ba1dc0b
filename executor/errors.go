package executor

import "errors"

// Sentinel errors shared by the Template and every executor. Match them with
// [errors.Is]; they are always wrapped with the key and executor involved.
var (
	// ErrNotAcquired reports that the lock is held by someone else, so this
	// attempt (or the whole acquire loop) did not obtain it.
	ErrNotAcquired = errors.New("lock4go: not acquired")

	// ErrLockNotHeld reports a Release or Renew of a lock this owner no
	// longer holds: it expired, was lost, or was already released. Nothing of
	// any other owner was touched.
	ErrLockNotHeld = errors.New("lock4go: lock not held")

	// ErrLockLost reports that a held lock was lost before it was released:
	// its lease expired, a renewal found it gone, or the backend session ended.
	ErrLockLost = errors.New("lock4go: lock lost")

	// ErrUnknownExecutor reports an executor name that is not registered.
	ErrUnknownExecutor = errors.New("lock4go: unknown executor")

	// ErrInvalidKey reports a key that cannot be locked: empty, not valid
	// UTF-8, containing NUL, too long, or built from a missing part.
	ErrInvalidKey = errors.New("lock4go: invalid key")

	// ErrBackend reports that the backend could not answer (down, timed
	// out, connection lost). The cause is wrapped beside it.
	ErrBackend = errors.New("lock4go: backend error")

	// ErrInvalidConfig reports a configuration or option value that cannot be
	// used, such as a negative duration.
	ErrInvalidConfig = errors.New("lock4go: invalid configuration")

	// ErrClosed reports a call on an executor whose Close has begun
	// (Acquire, Inspect, ForceRelease, and the waits inside Acquire), and
	// is the cause of the loss of every lease Close ended (see
	// [LostCause]). Executors return it without [ErrBackend]: the backend
	// did not fail, so nothing is worth retrying. The Template returns it
	// at once, wrapped together with ErrBackend, so that a service that
	// shuts down answers "unavailable".
	ErrClosed = errors.New("lock4go: executor closed")
)
