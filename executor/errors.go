package executor

import "errors"

// Sentinel errors shared by the Template and every executor, declared
// once, here: the root package lock4go exports the same values under the
// same names. Match them with [errors.Is]; they are always wrapped with the
// key and executor involved.
var (
	// ErrNotAcquired reports that the lock is held by someone else, so this
	// attempt did not obtain it; from the Template, that the acquire
	// timeout, the context, or a TryLock's single attempt ended first.
	ErrNotAcquired = errors.New("lock4go: not acquired")

	// ErrLockNotHeld reports a Release or Renew of a lock this owner no
	// longer holds: it expired, was lost, or was already released. Nothing of
	// any other owner was touched.
	ErrLockNotHeld = errors.New("lock4go: lock not held")

	// ErrLockLost reports that a held lock was lost before it was released:
	// its lease expired, a renewal found it gone, or the backend session
	// ended. The Template's Lock.Err returns it, and the context of
	// Template.Do is cancelled with it as the cause.
	ErrLockLost = errors.New("lock4go: lock lost")

	// ErrUnknownExecutor reports an executor name that is not registered.
	ErrUnknownExecutor = errors.New("lock4go: unknown executor")

	// ErrInvalidKey reports a key that cannot be locked: empty, not valid
	// UTF-8, containing NUL, too long (the Template's MaxKeyLen, or an
	// executor's own limit), or built from a missing part.
	ErrInvalidKey = errors.New("lock4go: invalid key")

	// ErrBackend reports that the backend could not answer (down, timed
	// out, connection lost); from the Template, within the acquire timeout.
	// The cause is wrapped beside it.
	ErrBackend = errors.New("lock4go: backend error")

	// ErrInvalidConfig reports a configuration, option or argument value
	// that cannot be used, such as a negative duration.
	ErrInvalidConfig = errors.New("lock4go: invalid configuration")

	// ErrClosed reports a call on an executor whose Close has begun
	// (Acquire, Inspect, ForceRelease, and the waits inside Acquire), and
	// is the cause of the loss of every lease Close ended (see
	// [LostCause]). Executors return it without [ErrBackend]: the backend
	// did not fail, so nothing is worth retrying. The Template returns it
	// at once, wrapped together with ErrBackend, so that a service that
	// shuts down answers "unavailable"; a lock the executor held is lost,
	// and its Err wraps [ErrLockLost] and ErrClosed.
	ErrClosed = errors.New("lock4go: executor closed")
)
