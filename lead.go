package lock4go

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// campaign is the acquire timeout of a campaign: no timeout, in effect (a
// century; a deadline beyond the range of time.Time would overflow).
const campaign = 100 * 365 * 24 * time.Hour

// Lead campaigns for the leadership of key until ctx ends: etcd's Election,
// Curator's LeaderSelector with auto-requeue. It waits for the key without
// an acquire timeout (backend failures are retried, as by Lock), runs fn as
// the leader, and campaigns again when the leadership ends. fn's context
// carries the lock (its Token fences the leader's writes: read it with
// [LockFrom]) and is cancelled with cause [ErrLockLost] if the lock is lost.
//
// How the leadership ends decides what Lead does next:
//   - the lock is lost (whatever fn returns then): Lead logs it and
//     campaigns again at once;
//   - fn returns nil: the leader steps down. Lead releases the key, lets
//     the next candidate lead, and campaigns again after the retry interval;
//   - fn returns an error while the lock was held: Lead releases the key and
//     returns the error, since a leader that fails is for the caller to
//     handle (restart it, or exit);
//   - ctx ends: Lead releases the key (if held) and returns ctx's cause.
//
// Lead returns at once, without campaigning, for an invalid key or option
// or an unknown executor. Options are those of Lock; [WithAcquireTimeout]
// and [NoWait] are ignored. [Template.Inspect] on key tells who leads (owner and token).
func (t *Template) Lead(ctx context.Context, key string, fn func(ctx context.Context) error, opts ...LockOption) error {
	if fn == nil {
		return fmt.Errorf("%w: Lead with a nil function", ErrInvalidConfig)
	}
	o, err := t.cfg.resolve(opts)
	if err != nil {
		return err
	}
	wait := make([]LockOption, len(opts), len(opts)+1)
	copy(wait, opts)
	wait = append(wait, LockOption{kind: optCampaign, d: campaign})
	var pause *time.Timer
	defer func() {
		if pause != nil {
			pause.Stop()
		}
	}()
	for {
		l, err := t.Lock(ctx, key, wait...)
		if err != nil {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			// Only a refused call ends a campaign without ctx ending.
			return err
		}
		ferr := t.run(ctx, l, fn)
		switch {
		case ctx.Err() != nil:
			return context.Cause(ctx)
		case errors.Is(ferr, ErrLockLost):
			t.cfg.Logger.LogAttrs(ctx, levelWarn, "lock4go: leadership lost; campaigning again",
				attrKey(key), attrErr(ferr))
			continue
		case ferr != nil:
			return ferr
		}
		if pause == nil {
			pause = time.NewTimer(o.retryInterval)
		} else {
			pause.Reset(o.retryInterval)
		}
		select {
		case <-pause.C:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}
