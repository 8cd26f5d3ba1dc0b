package executor

import (
	"context"
	"fmt"
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
