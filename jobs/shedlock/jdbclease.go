package shedlock

import (
	"context"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// jdbcLease is a job held in ShedLock's table. It is safe for concurrent
// use: its fields do not change after Acquire.
type jdbcLease struct {
	j     *JDBC
	key   string
	by    string // locked_by: the prefix and the owner
	token int64
	start time.Time
}

var (
	_ executor.Lease            = (*jdbcLease)(nil)
	_ executor.DeferredReleaser = (*jdbcLease)(nil)
)

// Token returns locked_at, in microseconds of the database's clock.
func (l *jdbcLease) Token() int64 { return l.token }

// Start returns a time before the insert was sent.
func (l *jdbcLease) Start() time.Time { return l.start }

// AfterLost implements [executor.Lease]: the table never reports a loss.
func (l *jdbcLease) AfterLost(func()) func() bool { return executor.NeverLost }

// Renew sets lock_until to ttl from the database's now, as ShedLock's
// extend does.
func (l *jdbcLease) Renew(ctx context.Context, ttl time.Duration) error {
	return l.exec(ctx, "renew", l.j.st.Extend, seconds(ttl))
}

// ReleaseAfter implements [executor.DeferredReleaser] with the same
// statement: lock_until becomes the database's now plus d.
func (l *jdbcLease) ReleaseAfter(ctx context.Context, d time.Duration) error {
	return l.exec(ctx, "release after", l.j.st.Extend, seconds(d))
}

// Release ends the row now, as ShedLock's unlock does with no
// lockAtLeastFor left.
func (l *jdbcLease) Release(ctx context.Context) error {
	return l.exec(ctx, "release", l.j.st.Unlock)
}

// exec runs one of the holder's statements: a row changed, or the lock
// is not held.
func (l *jdbcLease) exec(ctx context.Context, op, sql string, extra ...any) error {
	n, err := l.j.db.Exec(ctx, sql, append([]any{l.key, l.by}, extra...)...)
	switch {
	case err != nil:
		return fmt.Errorf("shedlock: %s %q: %w: %w", op, l.key, executor.ErrBackend, err)
	case n == 0:
		return fmt.Errorf("shedlock: %s %q: %w: %w", op, l.key, executor.ErrLockNotHeld, errNotHeld)
	}
	return nil
}

// abandon ends whatever an acquisition whose answer was lost may have
// written for this holder.
func (l *jdbcLease) abandon(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
	defer cancel()
	_, _ = l.j.db.Exec(cctx, l.j.st.Unlock, l.key, l.by)
}
