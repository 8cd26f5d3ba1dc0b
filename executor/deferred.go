package executor

import (
	"context"
	"time"
)

// DeferredReleaser is implemented by leases that can be released at a
// later time instead of at once: the backend keeps the key for this owner
// until then, by its own clock, and frees it by itself. A scheduled job's
// at-least-for end is such a release (see lock4go's Lock.ReleaseAt and the
// jobs package). Leases of executors that cannot shorten a lease (an etcd
// lease's TTL is fixed at its grant, a ZooKeeper node lives as long as its
// session) do not implement it; the Template then keeps the lock and
// releases it at the end by the local clock.
type DeferredReleaser interface {
	// ReleaseAfter makes the lease end d after the backend receives the
	// request, measured by the backend's clock, if this owner still holds
	// it (compare by owner): nobody else can take the key before then, and
	// it is free after it without a further request. The executor forgets
	// the lease (no renewal, release or Close touches it again) and wakes no
	// waiter; waiters find the key free when they next ask. d is positive
	// and a whole number of milliseconds. It returns an error wrapping
	// [ErrLockNotHeld] when the lock is gone, or [ErrBackend] when the
	// backend could not answer (the lease then ends by its TTL).
	ReleaseAfter(ctx context.Context, d time.Duration) error
}
