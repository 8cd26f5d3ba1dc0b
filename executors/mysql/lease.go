package mysql

import (
	"context"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/queued"
)

// lease is a lock, read lock or permit held through an [Executor], or an
// attempt to take one. It is safe for concurrent use.
type lease struct {
	queued.Base
	e *Executor
	// member is the executor's member when the attempt waits
	// (Request.Wait): it may have queued the executor for the key.
	member string
}

var (
	_ executor.Lease            = (*lease)(nil)
	_ executor.LostCauser       = (*lease)(nil)
	_ executor.DeferredReleaser = (*lease)(nil)
)

// Renew sets the lease's end to ttl from now, by the server's clock, if
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
	if l.Loss().Lost() {
		return l.e.core.LostErr("release", l)
	}
	ctx, cancel := l.e.core.ReleaseContext(ctx)
	defer cancel()
	v, err := l.e.release(ctx, l.Key(), l.Owner(), l.e.member)
	if v == releasedToSelf {
		l.e.waits.Wake(l.Key(), l.e.opts.ClaimWindow) // no ring: it is this executor
	}
	err = l.e.released(ctx, "release", l.Key(), v, err)
	if err == nil {
		l.e.core.Forget(l)
	}
	return l.e.core.Settle(l, err)
}

// ReleaseAfter implements [executor.DeferredReleaser]: the renew statement
// sets the row's expiry to the server's time plus d if the row still holds
// this owner, and the executor forgets the lease. No waiter is woken: the
// row's lease expires by itself.
func (l *lease) ReleaseAfter(ctx context.Context, d time.Duration) error {
	err := l.Renew(ctx, d)
	if err == nil {
		l.e.core.Forget(l)
	}
	return err
}

// releasedToSelf is the release's answer when it handed the lock to the
// releasing executor's own waiter.
const releasedToSelf = 2

// release runs the release statement of key by owner; member is the
// releasing executor's, or "" when its own waiters need no wake.
func (e *Executor) release(ctx context.Context, key, owner, member string) (int64, error) {
	return e.queryCode(ctx, e.sql.call("release", hexArg(key), hexArg(owner), num(e.claimMs), hexArg(member)))
}

// released turns the answer of a release of key under ctx into an error.
func (e *Executor) released(ctx context.Context, op, key string, v int64, err error) error {
	switch {
	case err != nil:
		return e.failed(ctx, op, key, err)
	case v < 1:
		return fmt.Errorf("mysql: %s %q: %w", op, key, executor.ErrLockNotHeld)
	}
	return nil
}

// queryCode runs stmt, a call of a procedure that answers a code and
// ring's flag, on a connection of db, on [queued.Core.CallContext]; a
// deadlock's victim is sent again, as in [Executor.acquireOn].
func (e *Executor) queryCode(ctx context.Context, stmt string) (int64, error) {
	ctx, cancel := e.core.CallContext(ctx)
	defer cancel()
	for try := 0; ; try++ {
		var (
			v      int64
			denied bool
		)
		err := e.db.QueryRowContext(ctx, stmt).Scan(&v, &denied)
		e.denied(denied)
		if deadlock(err) && try < maxDeadlockRetries && ctx.Err() == nil {
			continue
		}
		return v, err
	}
}
