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
// [Options.CleanupTimeout]), so no orphan lock is left behind. An attempt
// with the owner of the current holder returns the holder's lease again;
// an owner must not be reused after an error.
func (e *Executor) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	if req.Key == "" {
		return nil, fmt.Errorf("redis: acquire: empty key: %w", executor.ErrInvalidKey)
	}
	if req.TTL <= 0 {
		return nil, fmt.Errorf("redis: acquire %q: ttl %v: %w", req.Key, req.TTL, executor.ErrInvalidConfig)
	}
	if req.Owner == "" {
		return nil, fmt.Errorf("redis: acquire %q: empty owner: %w", req.Key, executor.ErrInvalidConfig)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("redis: acquire %q: %w: %w", req.Key, executor.ErrNotAcquired, ctx.Err())
	}
	l := &lease{e: e, keys: []string{req.Key, counterKey(req.Key)}, ownerArg: req.Owner}
	var r result
	if e.direct(ctx) {
		r = l.acquire(ctx, req.TTL)
	} else {
		r = e.run(ctx, func(ctx context.Context) result { return l.acquire(ctx, req.TTL) }, func(r result) {
			// The caller gave up; undo whatever this call did.
			if !isNil(r.err) {
				e.compensate(ctx, l)
			}
		})
	}
	switch {
	case r.err == nil && r.val > 0:
		l.token = r.val
		return l, nil
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
	if !e.spawn(func() { e.compensate(ctx, l) }) {
		e.compensate(ctx, l)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("redis: acquire %q: %w: %w: %w: %w", req.Key, executor.ErrNotAcquired, ctx.Err(), executor.ErrBackend, cause)
	}
	return nil, fmt.Errorf("redis: acquire %q: %w: %w", req.Key, executor.ErrBackend, cause)
}

// acquire runs the acquire script for l (whose keys are the lock key and its
// counter) with a lease of ttl.
func (l *lease) acquire(ctx context.Context, ttl time.Duration) result {
	v, err := acquireScript.Run(ctx, l.e.client, l.keys, l.ownerArg, l.e.msArg(ttl), l.e.counterTTLArg).Int64()
	return result{val: v, err: err}
}

// compensate deletes l's key if it holds l's owner, for an acquisition whose
// outcome is unknown. It runs detached from ctx's end, bounded by
// CleanupTimeout.
func (e *Executor) compensate(ctx context.Context, l *lease) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.opts.CleanupTimeout)
	defer cancel()
	r := e.run(ctx, l.release, nil)
	if r.err != nil {
		e.log.Warn("redis: an acquisition's reply was lost and removing its possible lock failed; the key stays locked until its TTL",
			"key", l.key(), "err", r.err)
		return
	}
	e.log.Debug("redis: compensated an acquisition whose reply was lost", "key", l.key(), "deleted", r.val == 1)
}

// msArg returns d in whole milliseconds (at least 1) as a script argument,
// reusing the boxed value of the last duration seen: leases mostly share
// one TTL, and this spares an allocation per call.
func (e *Executor) msArg(d time.Duration) any {
	if c := e.lastTTL.Load(); c != nil && c.d == d {
		return c.arg
	}
	c := &ttlArg{d: d, arg: ms(d)}
	e.lastTTL.Store(c)
	return c.arg
}

// ttlArg is a duration and its boxed script argument.
type ttlArg struct {
	d   time.Duration
	arg any
}

// ms converts a positive duration to whole milliseconds, at least 1.
func ms(d time.Duration) int64 { return max(d.Milliseconds(), 1) }
