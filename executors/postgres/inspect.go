package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lock4go/lock4go/executor"
)

// Inspect implements [executor.Inspector] with one statement: the writer
// of key (its owner, token and remaining lease) while one holds it, else
// the number of live read locks or permits in Holder.Shared with the owner,
// token and lease of the one that ends last, and in both cases the number
// of executors (processes, not goroutines) in the key's wait queue. A key
// that a release handed to the head of its queue, and that the head has
// yet to take, has the owner "lock4go:claim:<member>". It returns an error
// wrapping [executor.ErrLockNotHeld] when nobody holds key.
func (e *Executor) Inspect(ctx context.Context, key string) (executor.Holder, error) {
	if e.isClosed() {
		return executor.Holder{}, closedErr("inspect", key)
	}
	var (
		h       executor.Holder
		ttlMs   int64
		waiters int32
		shared  int32
	)
	err := e.pool.QueryRow(ctx, e.sql.inspect, pgxExec, key).Scan(&h.Owner, &h.Token, &ttlMs, &waiters, &shared)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return executor.Holder{}, fmt.Errorf("postgres: inspect %q: %w", key, executor.ErrLockNotHeld)
	case err != nil:
		return executor.Holder{}, fmt.Errorf("postgres: inspect %q: %w: %w", key, executor.ErrBackend, err)
	}
	h.TTL = time.Duration(max(ttlMs, 0)) * time.Millisecond
	h.Waiters = int(waiters)
	h.Shared = int(shared)
	return h, nil
}

// ForceRelease implements [executor.ForceReleaser] with the release
// statement: it frees key only if h.Owner still holds it (owner values are
// unique per acquisition, so a newer holder is never touched) and hands it
// to the head of the wait queue. The holder's Template learns of it at its
// next renewal, within a third of its lease; a fixed lease (WithExpire) is
// never renewed, so its holder is not told.
func (e *Executor) ForceRelease(ctx context.Context, key string, h executor.Holder) error {
	if key == "" {
		return fmt.Errorf("postgres: force release: empty key: %w", executor.ErrInvalidKey)
	}
	if e.isClosed() {
		return closedErr("force release", key)
	}
	if h.Owner == "" {
		return fmt.Errorf("postgres: force release %q: the holder has no owner value: %w", key, executor.ErrLockNotHeld)
	}
	v, err := e.queryInt(ctx, e.sql.release, key, h.Owner, e.claimMs, "")
	return check("force release", key, v, err)
}
