package executor

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ContextError returns ctx's error (nil while ctx is alive), with its cause
// wrapped beside it when the cause says more, such as the Template's own
// acquire timeout. Executors wrap it into the errors they return when ctx
// ended a call, so callers can match both with [errors.Is].
func ContextError(ctx context.Context) error {
	err := ctx.Err()
	if c := context.Cause(ctx); c != nil && c != err {
		return fmt.Errorf("%w: %w", err, c)
	}
	return err
}

// AttemptError classifies err, the failure of an acquire round trip made
// under ctx, as [Executor.Acquire] requires. A round trip the caller
// cancelled is a give-up: [ErrNotAcquired] and [ContextError]. Any other
// failure is [ErrBackend] and err; when ctx's deadline has passed, the
// backend did not answer in time and ContextError is wrapped too. Callers
// prefix the result with their name, the operation and the key.
func AttemptError(ctx context.Context, err error) error {
	cerr := ctx.Err()
	if d, ok := ctx.Deadline(); ok && cerr == nil && !time.Now().Before(d) {
		// A client's I/O deadline (ctx's own) can expire just before
		// ctx's timer fires; that timer is due, so wait for it.
		<-ctx.Done()
		cerr = ctx.Err()
	}
	switch {
	case errors.Is(cerr, context.Canceled):
		return fmt.Errorf("%w: %w", ErrNotAcquired, ContextError(ctx))
	case cerr == nil:
		return fmt.Errorf("%w: %w", ErrBackend, err)
	case err == nil || errors.Is(err, cerr):
		return fmt.Errorf("%w: %w", ErrBackend, ContextError(ctx))
	}
	return fmt.Errorf("%w: %w (%w)", ErrBackend, err, ContextError(ctx))
}

// GaveUp reports that ctx ended an acquisition before or between round
// trips: [ErrNotAcquired] and [ContextError].
func GaveUp(ctx context.Context) error {
	return fmt.Errorf("%w: %w", ErrNotAcquired, ContextError(ctx))
}
