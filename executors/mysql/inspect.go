package mysql

import (
	"context"
	"fmt"
	"time"

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
	holders, kind, waiters, err := e.inspect(ctx, key)
	if err != nil {
		return executor.Holder{}, e.failed(ctx, "inspect", key, err)
	}
	return queued.Inspected("mysql", key, holders, kind, waiters)
}

// inspect runs the inspect statement of key and returns its holders, the
// kind and waiters of its rows.
func (e *Executor) inspect(ctx context.Context, key string) (holders []executor.Holder, kind string, waiters int, err error) {
	rows, err := e.db.QueryContext(ctx, e.sql.call("inspect", hexArg(key)))
	if err != nil {
		return nil, "", 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			owner, k  []byte
			token, ms int64
			n         int64
		)
		if err := rows.Scan(&owner, &token, &ms, &k, &n); err != nil {
			return nil, "", 0, err
		}
		holders = append(holders, executor.Holder{Owner: string(owner), Token: token, TTL: time.Duration(max(ms, 0)) * time.Millisecond})
		kind, waiters = string(k), int(n)
	}
	if err := rows.Err(); err != nil {
		return nil, "", 0, err
	}
	return holders, kind, waiters, rows.Close()
}

// ForceRelease implements [executor.ForceReleaser] with the release
// statement: it frees key only if h.Owner still holds it (owner values are
// unique per acquisition, so a newer holder is never touched) and hands it
// to the head of the wait queue. The holder's Template learns of it at its
// next renewal, within a third of its lease; a fixed lease (WithExpire) is
// never renewed, so its holder is not told.
func (e *Executor) ForceRelease(ctx context.Context, key string, h executor.Holder) error {
	if err := e.core.CheckKey("force release", key); err != nil {
		return err
	}
	if h.Owner == "" || len(h.Owner) > maxOwnerLen {
		return fmt.Errorf("mysql: force release %q: the holder has no owner value: %w", key, executor.ErrLockNotHeld)
	}
	v, err := e.release(ctx, key, h.Owner, "")
	return e.released(ctx, "force release", key, v, err)
}
