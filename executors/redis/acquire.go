package redis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// errNoCounter reports an acquisition retried by go-redis whose fencing
// counter vanished meanwhile: no token can be trusted.
var errNoCounter = errors.New("redis: fencing counter missing")

// Acquire makes one attempt to take req.Key for req.Owner with one script:
// SET key owner NX PX ttl plus the fencing counter. It never waits, whatever
// req.Wait says; waiting is the Template's, helped by [Executor.WatchRelease].
//
// It returns an error wrapping [executor.ErrNotAcquired] when another owner
// holds the key; [executor.ErrBackend] and the cause when Redis did not
// answer; [executor.ErrNotAcquired], the context's error and
// [executor.ErrBackend] when ctx ended during the round trip. Whenever the
// script may have run without its token reaching us, a compare-and-delete of
// req.Owner is issued in the background (bounded by
// [Options.CleanupTimeout]), so no orphan lock is left behind. req.Owner
// must not be reused after an error.
func (e *Executor) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	if req.Key == "" {
		return nil, fmt.Errorf("redis: acquire: empty key: %w", executor.ErrInvalidKey)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("redis: acquire %q: %w: %w", req.Key, executor.ErrNotAcquired, ctx.Err())
	}
	keys := []string{req.Key, counterKey(req.Key)}
	r := e.run(ctx, func(ctx context.Context) result {
		v, err := acquireScript.Run(ctx, e.client, keys, req.Owner, ms(req.TTL), e.counterTTLms).Int64()
		return result{val: v, err: err}
	}, func(r result) {
		// The caller gave up; undo whatever this call did.
		if !isNil(r.err) {
			e.compensate(ctx, req.Key, req.Owner)
		}
	})
	switch {
	case r.err == nil && r.val > 0:
		return &lease{e: e, key: req.Key, owner: req.Owner, token: r.val}, nil
	case isNil(r.err):
		return nil, fmt.Errorf("redis: %q: %w", req.Key, executor.ErrNotAcquired)
	case r.abandoned:
		// The late callback compensates once the call returns.
		return nil, fmt.Errorf("redis: acquire %q: %w: %w: %w", req.Key, executor.ErrNotAcquired, ctx.Err(), executor.ErrBackend)
	}
	cause := r.err
	if cause == nil {
		cause = errNoCounter
	}
	if !e.spawn(func() { e.compensate(ctx, req.Key, req.Owner) }) {
		e.compensate(ctx, req.Key, req.Owner)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("redis: acquire %q: %w: %w: %w: %w", req.Key, executor.ErrNotAcquired, ctx.Err(), executor.ErrBackend, cause)
	}
	return nil, fmt.Errorf("redis: acquire %q: %w: %w", req.Key, executor.ErrBackend, cause)
}

// compensate deletes key if it holds owner, for an acquisition whose outcome
// is unknown. It runs detached from ctx's end, bounded by CleanupTimeout.
func (e *Executor) compensate(ctx context.Context, key, owner string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.opts.CleanupTimeout)
	defer cancel()
	r := e.release(ctx, key, owner)
	if r.err != nil {
		e.log.Warn("redis: an acquisition's reply was lost and removing its possible lock failed; the key stays locked until its TTL",
			"key", key, "err", r.err)
		return
	}
	e.log.Debug("redis: compensated an acquisition whose reply was lost", "key", key, "deleted", r.val == 1)
}

// release runs the compare-and-delete script, bounded by ctx.
func (e *Executor) release(ctx context.Context, key, owner string) result {
	return e.run(ctx, func(ctx context.Context) result {
		v, err := releaseScript.Run(ctx, e.client, []string{key}, owner, channelName(key)).Int64()
		return result{val: v, err: err}
	}, nil)
}

// ms converts a positive duration to whole milliseconds, at least 1.
func ms(d time.Duration) int64 { return max(d.Milliseconds(), 1) }
