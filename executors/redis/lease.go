package redis

import (
	"context"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// lease is a lock held through an [Executor], or an attempt to take one. It
// is safe for concurrent use.
type lease struct {
	e *Executor
	// keys are the acquire script's KEYS: the lock key, its owner's void
	// marker, its counter and, for a key with a hash tag, the counter's
	// legacy name (see legacyCounterKey). They are backed by names.
	keys     []string
	names    [4]string
	channel  string // the key's release channel
	ownerArg any    // the owner value, boxed once for every script call
	token    int64
	start    time.Time // before the acquire script was sent
}

var _ executor.Lease = (*lease)(nil)

// newLease returns the attempt of owner to take key through e.
func newLease(e *Executor, key, owner string) *lease {
	void, counter, channel, legacy := acquireNames(key, owner)
	l := &lease{e: e, names: [4]string{key, void, counter, legacy}, channel: channel, ownerArg: owner, start: time.Now()}
	l.keys = l.names[:3]
	if legacy != "" {
		l.keys = l.names[:4]
	}
	return l
}

// key returns the lock key.
func (l *lease) key() string { return l.keys[0] }

// Token returns the fencing token the acquire script returned.
func (l *lease) Token() int64 { return l.token }

// Start returns a time before the acquire script was sent: the key's TTL
// runs from when the script ran.
func (l *lease) Start() time.Time { return l.start }

// AfterLost implements [executor.Lease]: Redis never reports a lost key by
// itself; the Template's renewals find out.
func (l *lease) AfterLost(func()) (stop func() bool) { return executor.NeverLost }

// Renew sets the key's TTL to ttl from now if it still holds this owner.
func (l *lease) Renew(ctx context.Context, ttl time.Duration) error {
	var r result
	if l.e.direct(ctx) {
		r = l.renew(ctx, ttl)
	} else {
		r = l.e.run(ctx, func(ctx context.Context) result { return l.renew(ctx, ttl) })
	}
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
	var r result
	if l.e.direct(ctx) {
		r = l.release(ctx)
	} else {
		r = l.e.run(ctx, l.release)
	}
	return l.check("release", r)
}

// renew runs the renew script.
func (l *lease) renew(ctx context.Context, ttl time.Duration) result {
	v, err := renewScript.Run(ctx, l.e.client, l.keys[:1], l.ownerArg, l.e.msArg(ttl)).Int64()
	return result{val: v, err: err}
}

// release runs the compare-and-delete script, which also announces the
// release.
func (l *lease) release(ctx context.Context) result {
	v, err := releaseScript.Run(ctx, l.e.client, l.keys[:1], l.ownerArg, l.channel).Int64()
	return result{val: v, err: err}
}

// check turns the result of a renew or release script into an error.
func (l *lease) check(op string, r result) error {
	switch {
	case r.err != nil:
		return fmt.Errorf("redis: %s %q: %w: %w", op, l.key(), executor.ErrBackend, r.err)
	case r.val != 1:
		return fmt.Errorf("redis: %s %q: %w", op, l.key(), executor.ErrLockNotHeld)
	}
	return nil
}
