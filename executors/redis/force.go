package redis

import (
	"context"
	"fmt"

	"github.com/lock4go/lock4go/executor"
)

// ForceRelease implements [executor.ForceReleaser] with the release script:
// it deletes key only if it still holds h.Owner (owner values are unique
// per attempt, so a newer holder is never touched) and announces the
// release to waiters. The holder's Template learns of it at its next
// renewal, within a third of its lease; a fixed lease (WithExpire) is never
// renewed, so its holder is not told.
func (e *Executor) ForceRelease(ctx context.Context, key string, h executor.Holder) error {
	if key == "" {
		return fmt.Errorf("redis: force release: empty key: %w", executor.ErrInvalidKey)
	}
	if e.core.Closed() {
		return e.core.ClosedErr("force release", key)
	}
	if h.Owner == "" {
		return fmt.Errorf("redis: force release %q: the holder has no owner value: %w", key, executor.ErrLockNotHeld)
	}
	l := newLease(e, key, h.Owner)
	r := e.run(ctx, l.release)
	switch {
	case r.err != nil:
		return fmt.Errorf("redis: force release %q: %w: %w", key, executor.ErrBackend, r.err)
	case r.val != 1:
		return fmt.Errorf("redis: force release %q: %w", key, executor.ErrLockNotHeld)
	}
	return nil
}
