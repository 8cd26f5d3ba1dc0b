package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/kit"
)

// lease is a lock, read lock or permit held through an [Executor], or an
// attempt to take one. It is safe for concurrent use.
type lease struct {
	e     *Executor
	key   string
	owner string
	token int64
	start time.Time // before the acquire statement was sent
	loss  kit.Loss  // set by Close: the database never reports a loss by itself
}

var _ executor.Lease = (*lease)(nil)

// Key implements [queued.Lease]: the lock key.
func (l *lease) Key() string { return l.key }

// Loss implements [queued.Lease]: the lease's loss, which Close marks.
func (l *lease) Loss() *kit.Loss { return &l.loss }

// Token returns the fencing token the acquire statement drew.
func (l *lease) Token() int64 { return l.token }

// Start returns a time before the acquire statement was sent: the lease
// runs from when the statement ran, by the database's clock.
func (l *lease) Start() time.Time { return l.start }

// AfterLost implements [executor.Lease]: the database never reports a lost
// lease by itself, so f runs only when [Executor.Close] ends the lease;
// the Template's renewals find the other losses.
func (l *lease) AfterLost(f func()) (stop func() bool) { return l.loss.After(f) }

// LostCause implements [executor.LostCauser]: [executor.ErrClosed] once
// Close ended the lease.
func (l *lease) LostCause() error { return l.loss.Cause() }

// Renew sets the lease's end to ttl from now, by the database's clock, if
// this owner still holds it and it has not expired.
func (l *lease) Renew(ctx context.Context, ttl time.Duration) error {
	return l.e.RenewBatch(ctx, []executor.RenewItem{{Lease: l, TTL: ttl}})[0]
}

// Release frees the key if this owner still holds it, and hands it to the
// executor at the head of its wait queue. A ctx that has already ended is
// replaced by a detached one bounded by [Options.CleanupTimeout], so a lock
// is released even by a caller whose request was cancelled. A lease that
// had expired is removed all the same, and reported as not held.
func (l *lease) Release(ctx context.Context) error {
	if l.loss.Lost() {
		return l.e.core.LostErr("release", l)
	}
	ctx, cancel := l.e.core.ReleaseContext(ctx)
	defer cancel()
	v, err := l.e.queryInt(ctx, l.e.sql.release, l.key, l.owner, l.e.claimMs, l.e.member)
	if v == releasedToSelf {
		l.e.onWake(wakeLock + l.key) // the notification follows
	}
	err = l.e.released(ctx, "release", l.key, v, err)
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

// RenewBatch renews every item with one statement and returns one error
// per item, in order: nil, an error wrapping [executor.ErrLockNotHeld]
// when the lease is no longer held by its owner (or had expired), or one
// wrapping [executor.ErrBackend]. Leases of other executors are renewed one
// by one through their own Renew.
func (e *Executor) RenewBatch(ctx context.Context, items []executor.RenewItem) []error {
	errs := make([]error, len(items))
	idx := make([]int, 0, len(items))
	keys := make([]string, 0, len(items))
	owners := make([]string, 0, len(items))
	ttls := make([]int64, 0, len(items))
	for i, it := range items {
		l, ok := it.Lease.(*lease)
		if !ok || l.e != e {
			errs[i] = it.Lease.Renew(ctx, it.TTL)
			continue
		}
		if l.loss.Lost() {
			errs[i] = e.core.LostErr("renew", l)
			continue
		}
		idx = append(idx, i)
		keys = append(keys, l.key)
		owners = append(owners, l.owner)
		ttls = append(ttls, kit.Millis(it.TTL))
	}
	if len(idx) == 0 {
		return errs
	}
	renewed, err := e.renew(ctx, keys, owners, ttls)
	for j, i := range idx {
		switch {
		case err != nil:
			errs[i] = e.failed(ctx, "renew", keys[j], err)
		case !renewed[j]:
			errs[i] = e.core.Settle(items[i].Lease.(*lease), fmt.Errorf("postgres: renew %q: %w", keys[j], executor.ErrLockNotHeld))
		}
	}
	return errs
}

// renew runs the renew statement and reports which leases it renewed.
func (e *Executor) renew(ctx context.Context, keys, owners []string, ttls []int64) ([]bool, error) {
	ctx, cancel := e.callContext(ctx)
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
