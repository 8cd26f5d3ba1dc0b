package redis

import (
	"context"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// lease is a lock held through an [Executor]. It is safe for concurrent use.
type lease struct {
	e     *Executor
	key   string
	owner string
	token int64
}

var _ executor.Lease = (*lease)(nil)

// Token returns the fencing token the acquire script returned.
func (l *lease) Token() int64 { return l.token }

// Lost returns nil: Redis never reports a lost key by itself; the Template's
// renewals find out.
func (l *lease) Lost() <-chan struct{} { return nil }

// Renew sets the key's TTL to ttl from now if it still holds this owner.
func (l *lease) Renew(ctx context.Context, ttl time.Duration) error {
	r := l.e.run(ctx, func(ctx context.Context) result {
		v, err := renewScript.Run(ctx, l.e.client, []string{l.key}, l.owner, ms(ttl)).Int64()
		return result{val: v, err: err}
	}, nil)
	return l.check("renew", r)
}

// Release deletes the key if it still holds this owner and announces the
// release to waiters. A ctx that has already ended is replaced by a detached
// one bounded by [Options.CleanupTimeout], so a lock is released even by a
// caller whose request was cancelled.
func (l *lease) Release(ctx context.Context) error {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), l.e.opts.CleanupTimeout)
		defer cancel()
	}
	return l.check("release", l.e.release(ctx, l.key, l.owner))
}

// check turns the result of a renew or release script into an error.
func (l *lease) check(op string, r result) error {
	switch {
	case r.err != nil:
		return fmt.Errorf("redis: %s %q: %w: %w", op, l.key, executor.ErrBackend, r.err)
	case r.val != 1:
		return fmt.Errorf("redis: %s %q: %w", op, l.key, executor.ErrLockNotHeld)
	}
	return nil
}
