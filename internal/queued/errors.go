package queued

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/lock4go/lock4go/executor"
)

// The errors every queued executor returns alike, each starting with the
// executor's [Config.Prefix].

// errVoided is the cause, beside [executor.ErrNotAcquired], of an attempt
// whose owner a void marked: an earlier attempt with the same owner lost
// its reply and was voided, so nothing was written.
var errVoided = errors.New("owner voided after a lost reply")

// Busy is the error of an attempt on key that found it held by another
// owner: it wraps [executor.ErrNotAcquired].
func (c *Core[L]) Busy(key string) error {
	return fmt.Errorf("%s: %q: %w", c.prefix, key, executor.ErrNotAcquired)
}

// Voided is the error of an attempt on key whose owner had been voided:
// it wraps [executor.ErrNotAcquired].
func (c *Core[L]) Voided(key string) error {
	return fmt.Errorf("%s: acquire %q: %w: %w", c.prefix, key, executor.ErrNotAcquired, errVoided)
}

// CheckKey is the check of a call of op (an acquisition, an inspection, a
// forced release) on key, before any round trip: a key the backend cannot
// store faithfully ([executor.ValidateKey] with [Config.MaxKeyLen]) is an
// error wrapping [executor.ErrInvalidKey]; after Close began, the call
// fails with [Core.ClosedErr].
func (c *Core[L]) CheckKey(op, key string) error {
	if c.maxKey > 0 {
		if err := executor.ValidateKey(key, c.maxKey); err != nil {
			return fmt.Errorf("%s: %s: %w", c.prefix, op, err)
		}
	}
	if c.Closed() {
		return c.ClosedErr(op, key)
	}
	return nil
}

// GaveUp is the error of an attempt on key whose caller's ctx ended
// before it had an answer: it wraps what [executor.GaveUp] returns.
func (c *Core[L]) GaveUp(ctx context.Context, key string) error {
	return fmt.Errorf("%s: acquire %q: %w", c.prefix, key, executor.GaveUp(ctx))
}

// ClosedErr is the error of op on key once Close has begun: it wraps
// [executor.ErrClosed].
func (c *Core[L]) ClosedErr(op, key string) error {
	return fmt.Errorf("%s: %s %q: %w", c.prefix, op, key, executor.ErrClosed)
}

// LostErr is the error of op (a renewal or release) on l once Close has
// ended it: it wraps [executor.ErrLockNotHeld] and the loss's cause.
func (c *Core[L]) LostErr(op string, l L) error {
	return fmt.Errorf("%s: %s %q: %w: %w", c.prefix, op, l.Key(), executor.ErrLockNotHeld, l.Loss().Cause())
}

// AcquireErr is the error of an attempt on key whose round trip failed
// with err, or that the caller abandoned (err is then ctx's error), as
// [executor.AttemptError] classifies it.
func (c *Core[L]) AcquireErr(ctx context.Context, key string, err error) error {
	return fmt.Errorf("%s: acquire %q: %w", c.prefix, key, executor.AttemptError(ctx, err))
}

// KindErr is the error of req when its key is in use as another kind (a
// lock, a read-write lock or a semaphore of another size): it wraps
// [executor.ErrInvalidConfig].
func (c *Core[L]) KindErr(req executor.Request) error {
	what := "a read lock"
	switch {
	case req.Permits > 0:
		what = fmt.Sprintf("a semaphore of %d permits", req.Permits)
	case !req.Shared:
		what = "a lock"
	}
	return fmt.Errorf("%s: %q is in use as another kind than %s (a lock, a read-write lock or a semaphore of another size): %w",
		c.prefix, req.Key, what, executor.ErrInvalidConfig)
}

// ShareKind returns the kind a queued executor stores for a request of
// shares: "r" for a read lock, "p<n>" for a permit of n.
func ShareKind(req executor.Request) string {
	if req.Permits > 0 {
		return "p" + strconv.Itoa(req.Permits)
	}
	return "r"
}
