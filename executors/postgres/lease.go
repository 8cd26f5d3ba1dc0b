package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/queued"
)

// lease is a lock, read lock or permit held through an [Executor], or an
// attempt to take one. It is safe for concurrent use.
type lease struct {
	queued.Base
	e *Executor
}

var (
	_ executor.Lease      = (*lease)(nil)
	_ executor.LostCauser = (*lease)(nil)
)

// Renew sets the lease's end to ttl from now, by the database's clock, if
// this owner still holds it and it has not expired.
func (l *lease) Renew(ctx context.Context, ttl time.Duration) error {
	return l.e.RenewBatch(ctx, []executor.RenewItem{{Lease: l, TTL: ttl}})[0]
}

var _ executor.DeferredReleaser = (*lease)(nil)

// ReleaseAfter implements [executor.DeferredReleaser]: the renew statement
// sets the row's expires_at to the server's clock_timestamp() plus d if
// the row still holds this owner, and the executor forgets the lease. No
// waiter is woken: the row's lease expires by itself.
func (l *lease) ReleaseAfter(ctx context.Context, d time.Duration) error {
	return l.e.core.Deferred(l, l.Renew(ctx, d))
}

// Release frees the key if this owner still holds it, and hands it to the
// executor at the head of its wait queue. A ctx that has already ended is
// replaced by a detached one bounded by [Options.CleanupTimeout], so a lock
// is released even by a caller whose request was cancelled. A lease that
// had expired is removed all the same, and reported as not held.
func (l *lease) Release(ctx context.Context) error {
	if l.Loss().Lost() {
		return l.e.core.LostErr("release", l)
	}
	ctx, cancel := l.e.core.ReleaseContext(ctx)
	defer cancel()
	v, err := l.e.queryInt(ctx, l.e.sql.release, l.Key(), l.Owner(), l.e.claimMs, l.e.member)
	if v == releasedToSelf {
		l.e.onWake(wakeLock + l.Key()) // the notification follows
	}
	err = l.e.released(ctx, "release", l.Key(), v, err)
	if err == nil {
		l.e.core.Forget(l)
	}
	return l.e.core.Settle(l, err)
}

// releasedToSelf is the release's answer when it handed the lock to the
// releasing executor's own waiter.
const releasedToSelf = 2

// released turns the answer of a release of key under ctx into an error.
func (e *Executor) released(ctx context.Context, op, key string, v int64, err error) error {
	switch {
	case err != nil:
		return e.failed(ctx, op, key, err)
	case v < 1:
		return fmt.Errorf("postgres: %s %q: %w", op, key, executor.ErrLockNotHeld)
	}
	return nil
}

var _ executor.BatchRenewer = (*Executor)(nil)

// RenewBatch renews every item with one statement and returns one error
// per item, in order: nil, an error wrapping [executor.ErrLockNotHeld]
// when the lease is no longer held by its owner (or had expired), or one
// wrapping [executor.ErrBackend]. Leases of other executors are renewed one
// by one through their own Renew.
func (e *Executor) RenewBatch(ctx context.Context, items []executor.RenewItem) []error {
	errs, idx, own := e.core.Renewals(ctx, items, e.mine)
	if len(own) == 0 {
		return errs
	}
	keys := make([]string, len(own))
	owners := make([]string, len(own))
	ttls := make([]int64, len(own))
	for j, l := range own {
		keys[j], owners[j], ttls[j] = l.Key(), l.Owner(), leases.Millis(items[idx[j]].TTL)
	}
	renewed, err := e.renew(ctx, keys, owners, ttls)
	for j, i := range idx {
		switch {
		case err != nil:
			errs[i] = e.failed(ctx, "renew", keys[j], err)
		case !renewed[j]:
			errs[i] = e.core.Settle(own[j], fmt.Errorf("postgres: renew %q: %w", keys[j], executor.ErrLockNotHeld))
		}
	}
	return errs
}

// mine returns l as a lease of e, and reports whether it is one.
func (e *Executor) mine(l executor.Lease) (*lease, bool) {
	ml, ok := l.(*lease)
	return ml, ok && ml.e == e
}

// renew runs the renew statement and reports which leases it renewed.
func (e *Executor) renew(ctx context.Context, keys, owners []string, ttls []int64) ([]bool, error) {
	ctx, cancel := e.core.CallContext(ctx)
	defer cancel()
	rows, err := e.pool.Query(ctx, e.sql.renew, pgxExec, keys, owners, ttls)
	if err != nil {
		return nil, err
	}
	renewed := make([]bool, len(keys))
	var i int64
	_, err = pgx.ForEachRow(rows, []any{&i}, func() error {
		if i >= 1 && int(i) <= len(renewed) {
			renewed[i-1] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return renewed, nil
}
