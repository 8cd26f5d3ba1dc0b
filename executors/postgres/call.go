package postgres

import (
	"context"
	"errors"
	"time"
)

// callContext returns the context a statement runs on: ctx's values and
// deadline, but not at once its cancellation. pgx answers a context that
// ends mid-statement by closing the connection, and a new one costs the
// database a process and the caller a handshake: callers that cancel often
// (a storm of abandoned HTTP requests) would churn the pool. A statement
// whose ctx is cancelled gets CleanupTimeout more to answer, which on a
// healthy database it does within a round trip; the caller then undoes
// what the statement did if it must (Acquire releases a grant). A deadline
// still ends it at once.
func (e *Executor) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Done() == nil {
		return ctx, func() {}
	}
	var (
		cctx   context.Context
		cancel context.CancelFunc
	)
	if d, ok := ctx.Deadline(); ok {
		cctx, cancel = context.WithDeadline(context.WithoutCancel(ctx), d)
	} else {
		cctx, cancel = context.WithCancel(context.WithoutCancel(ctx))
	}
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel()
			return
		}
		t := time.NewTimer(e.opts.CleanupTimeout)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-done:
		}
	})
	return cctx, func() {
		close(done)
		stop()
		cancel()
	}
}
