package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/queued"
)

// Inspect implements [executor.Inspector] with one statement: the writer
// of key (its owner, token and remaining lease) while one holds it, else
// every live read lock or permit ([executor.Holder.Holders], oldest token
// first, the claims a release gave to waiting executors last), and the
// number of executors (processes, not goroutines) in the key's wait
// queue, for every kind. A key that a release handed to the head of its
// queue, and that the head has yet to take, has the owner
// "lock4go:claim:<member>". It returns an error wrapping
// [executor.ErrLockNotHeld] when nobody holds key, and one wrapping
// [executor.ErrInvalidKey], without a round trip, for a key Acquire
// refuses.
func (e *Executor) Inspect(ctx context.Context, key string) (executor.Holder, error) {
	if err := e.core.CheckKey("inspect", key); err != nil {
		return executor.Holder{}, err
	}
	ctx, cancel := e.core.CallContext(ctx)
	defer cancel()
	rows, err := e.pool.Query(ctx, e.sql.inspect, pgxExec, key)
	if err != nil {
		return executor.Holder{}, e.failed(ctx, "inspect", key, err)
	}
	var (
		holders []executor.Holder
		one     executor.Holder
		ttlMs   int64
		kind    string
		waiters int32
	)
	_, err = pgx.ForEachRow(rows, []any{&one.Owner, &one.Token, &ttlMs, &kind, &waiters}, func() error {
		one.TTL = time.Duration(max(ttlMs, 0)) * time.Millisecond
		holders = append(holders, one)
		return nil
	})
	if err != nil {
		return executor.Holder{}, e.failed(ctx, "inspect", key, err)
	}
	return queued.Inspected("postgres", key, holders, kind, int(waiters))
}

// ForceRelease implements [executor.ForceReleaser] with the release
// statement: it frees key only if h.Owner still holds it (owner values are
// unique per attempt, so a newer holder is never touched) and hands it
// to the head of the wait queue. The holder's Template learns of it at its
// next renewal, within a third of its lease; a fixed lease (WithExpire) is
// never renewed, so its holder is not told.
func (e *Executor) ForceRelease(ctx context.Context, key string, h executor.Holder) error {
	if err := e.core.CheckKey("force release", key); err != nil {
		return err
	}
	if h.Owner == "" {
		return fmt.Errorf("postgres: force release %q: the holder has no owner value: %w", key, executor.ErrLockNotHeld)
	}
	v, err := e.queryInt(ctx, e.sql.release, key, h.Owner, e.claimMs, "")
	return e.released(ctx, "force release", key, v, err)
}
