package redis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// Internal causes, wrapped beside the executor sentinels.
var (
	// errNoCounter: an acquisition retried by go-redis whose fencing counter
	// vanished meanwhile; no token can be trusted.
	errNoCounter = errors.New("redis: fencing counter missing")

	// errVoided: the owner's acquisitions were voided by the compensation of
	// an earlier attempt with the same owner; nothing was written.
	errVoided = errors.New("redis: owner voided by the compensation of a lost reply")
)

// acquireErr reports an acquire round trip of key that failed with err, or
// that the caller abandoned (err is then ctx's error). A round trip the
// caller cancelled is a give-up: [executor.ErrNotAcquired] and the context's
// error and cause, not a backend failure. Any other failure wraps
// [executor.ErrBackend], and the context's error and cause when its
// deadline has passed: Redis did not answer in time.
func acquireErr(ctx context.Context, key string, err error) error {
	cerr := ctx.Err()
	if d, ok := ctx.Deadline(); ok && cerr == nil && !time.Now().Before(d) {
		// The client's I/O deadline (ctx's own) can expire just before
		// ctx's timer fires; that timer is due, so wait for it.
		<-ctx.Done()
		cerr = ctx.Err()
	}
	switch {
	case errors.Is(cerr, context.Canceled):
		return fmt.Errorf("redis: acquire %q: %w: %w", key, executor.ErrNotAcquired, executor.ContextError(ctx))
	case cerr == nil:
		return fmt.Errorf("redis: acquire %q: %w: %w", key, executor.ErrBackend, err)
	case errors.Is(err, cerr):
		return fmt.Errorf("redis: acquire %q: %w: %w", key, executor.ErrBackend, executor.ContextError(ctx))
	}
	return fmt.Errorf("redis: acquire %q: %w: %w (%w)", key, executor.ErrBackend, err, executor.ContextError(ctx))
}
