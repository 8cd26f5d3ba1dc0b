package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lock4go/lock4go/executor"
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
	h, err := e.inspect(ctx, key)
	switch {
	case err != nil:
		return executor.Holder{}, e.failed(ctx, "inspect", key, err)
	case len(h.Holders) == 0:
		return executor.Holder{}, fmt.Errorf("mysql: inspect %q: %w", key, executor.ErrLockNotHeld)
	}
	h.Owner, h.Token, h.TTL = h.Holders[0].Owner, h.Holders[0].Token, h.Holders[0].TTL
	return h, nil
}

// inspect runs the inspect statement of key and collects its rows.
func (e *Executor) inspect(ctx context.Context, key string) (executor.Holder, error) {
	ctx, cancel := e.core.CallContext(ctx)
	defer cancel()
	rows, err := e.db.QueryContext(ctx, e.sql.call("inspect", hexArg(key)))
	if err != nil {
		return executor.Holder{}, err
	}
	defer rows.Close()
	var h executor.Holder
	for rows.Next() {
		var (
			owner, kind  []byte
			token, ttlMs int64
			waiters      int64
		)
		if err := rows.Scan(&owner, &token, &ttlMs, &kind, &waiters); err != nil {
			return executor.Holder{}, err
		}
		h.Holders = append(h.Holders, executor.Holder{Owner: string(owner), Token: token, TTL: time.Duration(max(ttlMs, 0)) * time.Millisecond})
		h.Kind, h.Permits = holderKind(string(kind))
		h.Waiters = int(waiters)
	}
	if err := rows.Err(); err != nil {
		return executor.Holder{}, err
	}
	return h, rows.Close()
}

// holderKind maps a row's kind ("w", "r" or "p<n>") to the Holder's.
func holderKind(kind string) (executor.Kind, int) {
	switch {
	case kind == "r":
		return executor.KindRead, 0
	case strings.HasPrefix(kind, "p"):
		n, _ := strconv.Atoi(kind[1:])
		return executor.KindPermits, n
	}
	return executor.KindLock, 0
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
