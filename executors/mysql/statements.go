package mysql

import (
	"context"

	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/queued"
)

// The executor's round trips for its [queued.Core].

// voidAll runs the void statement of every item, one after the other,
// while ctx lasts: it marks the owner void (so that the attempt, should it
// land later, takes nothing) and frees what the owner holds, and leaves
// the key's queue when the executor no longer waits for it.
func (e *Executor) voidAll(ctx context.Context, items []queued.Void[*lease]) []error {
	errs := make([]error, len(items))
	for i, it := range items {
		if err := ctx.Err(); err != nil {
			errs[i] = err // not sent: the round's deadline has passed
			continue
		}
		_, errs[i] = e.queryCode(ctx, e.sql.call("void", hexArg(it.Lease.Key()), hexArg(it.Lease.Owner()),
			num(leases.Millis(it.TTL)), num(e.claimMs), hexArg(e.leaving(it.Lease))))
	}
	return errs
}

// leaving returns the member whose queue entries of l's key the void of
// l removes: l's, when l waited and no waiter of the executor watches the
// key any more (the lost statement may have queued the executor after its
// last waiter left, and nobody would take the claim its turn brings); ""
// otherwise.
func (e *Executor) leaving(l *lease) string {
	if l.member == "" || e.waits.Queued(l.Key()) {
		return ""
	}
	return l.member
}

// releaseHeld releases l by owner, at Close or for an attempt that
// completed after it began.
func (e *Executor) releaseHeld(ctx context.Context, l *lease) error {
	_, err := e.release(ctx, l.Key(), l.Owner(), "")
	return err
}

// leave removes the executor from key's wait queue, and gives up the
// claims a release gave it, handing the key on.
func (e *Executor) leave(ctx context.Context, key string) error {
	_, err := e.queryCode(ctx, e.sql.call("leave", hexArg(key), hexArg(e.member), num(e.claimMs)))
	return err
}
