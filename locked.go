package lock4go

import (
	"context"
	"fmt"
)

// Locked returns fn wrapped in a lock: Lock4j's @Lock4j for any function,
// without annotations (queue consumers, cron jobs, service methods). Each
// call builds its key from the request with key (keybuilder.Fields builds
// one from struct fields, with the escaping of the HTTP and gRPC keys), runs
// fn under [Template.Do] with opts, and returns fn's result.
//
// When key fails, fn is not called and the error is returned wrapped (it
// wraps [ErrInvalidKey] when the request lacks a key part, as the key
// builders' errors do; anything else is a server-side failure). A lock not
// obtained is Do's error ([*AcquireError]).
// A nil tpl, key or fn makes every call fail with [ErrInvalidConfig].
//
//	charge := lock4go.Locked(tpl, orderKey, svc.Charge, lock4go.NoWait())
//	receipt, err := charge(ctx, req)
func Locked[Req, Resp any](tpl *Template, key func(Req) (string, error), fn func(context.Context, Req) (Resp, error), opts ...LockOption) func(context.Context, Req) (Resp, error) {
	if tpl == nil || key == nil || fn == nil {
		return func(context.Context, Req) (Resp, error) {
			var zero Resp
			return zero, fmt.Errorf("%w: Locked with a nil Template, key function or function", ErrInvalidConfig)
		}
	}
	return func(ctx context.Context, req Req) (Resp, error) {
		var resp Resp
		k, err := key(req)
		if err != nil {
			return resp, fmt.Errorf("lock4go: key of Locked: %w", err)
		}
		err = tpl.Do(ctx, k, func(ctx context.Context) error {
			var ferr error
			resp, ferr = fn(ctx, req)
			return ferr
		}, opts...)
		return resp, err
	}
}
