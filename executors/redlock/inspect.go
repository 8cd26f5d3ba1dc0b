package redlock

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lock4go/lock4go/executor"
)

var _ executor.Inspector = (*Executor)(nil)

// Inspect implements executor.Inspector: it inspects key on every master in
// parallel and reports the owner that a majority of them holds, with its
// token (see below), the shortest of their TTLs and the most
// waiters (executors, not goroutines) queued on one master. Redlock locks
// are mutexes: Holder.Kind is always [executor.KindLock]. It returns an
// error wrapping executor.ErrLockNotHeld when no owner holds a majority (the
// key may still be held on a minority, by a lock being acquired or
// abandoned), and one wrapping executor.ErrBackend when masters that did not
// answer could make the difference.
//
// The token is the largest that a majority of the holder's masters reach:
// the lease's token, since Acquire raised its majority's tokens to it and a
// master whose token is higher (one that granted late) is not needed for
// it.
func (e *Executor) Inspect(ctx context.Context, key string) (executor.Holder, error) {
	if e.isClosed() {
		return executor.Holder{}, closedErr("inspect", key)
	}
	hs := make([]executor.Holder, len(e.nodes))
	errs := make([]error, len(e.nodes))
	e.each(len(e.nodes), func(i int) { hs[i], errs[i] = e.nodes[i].Inspect(ctx, key) })
	counts := make(map[string]int, len(e.nodes))
	down := 0
	var first error
	for i, err := range errs {
		switch {
		case err == nil:
			counts[hs[i].Owner]++
		case !errors.Is(err, executor.ErrLockNotHeld):
			down++
			first = cmpErr(first, err)
		}
	}
	for owner, n := range counts {
		if n < e.quorum {
			continue
		}
		h := executor.Holder{Owner: owner, Waiters: -1}
		var tokens []int64
		for i, err := range errs {
			if err != nil || hs[i].Owner != owner {
				continue
			}
			tokens = append(tokens, hs[i].Token)
			if h.TTL == 0 || hs[i].TTL < h.TTL {
				h.TTL = hs[i].TTL
			}
			h.Waiters = max(h.Waiters, hs[i].Waiters)
		}
		slices.Sort(tokens)
		h.Token = tokens[len(tokens)-e.quorum]
		return executor.NewHolder(executor.KindLock, 0, []executor.Holder{h}, h.Waiters), nil
	}
	best := 0
	for _, n := range counts {
		best = max(best, n)
	}
	if best+down >= e.quorum && first != nil {
		return executor.Holder{}, fmt.Errorf("redlock: inspect %q: %d of %d masters did not answer: %w", key, down, len(e.nodes), first)
	}
	return executor.Holder{}, fmt.Errorf("redlock: inspect %q: no owner on a majority of %d masters: %w", key, len(e.nodes), executor.ErrLockNotHeld)
}

var _ executor.ForceReleaser = (*Executor)(nil)

// ForceRelease implements executor.ForceReleaser: it releases key on every
// master that still holds h.Owner, in parallel, waking waiters as a release
// does. It returns nil when at least one master released it, an error
// wrapping executor.ErrLockNotHeld when none held it, and one wrapping
// executor.ErrBackend when none released it and some did not answer.
func (e *Executor) ForceRelease(ctx context.Context, key string, h executor.Holder) error {
	if e.isClosed() {
		return closedErr("force release", key)
	}
	errs := make([]error, len(e.nodes))
	e.each(len(e.nodes), func(i int) { errs[i] = e.nodes[i].ForceRelease(ctx, key, h) })
	var first error
	for _, err := range errs {
		if err == nil {
			return nil
		}
		if !errors.Is(err, executor.ErrLockNotHeld) {
			first = cmpErr(first, err)
		}
	}
	if first != nil {
		return fmt.Errorf("redlock: force release %q: %w", key, first)
	}
	return fmt.Errorf("redlock: force release %q: %w", key, executor.ErrLockNotHeld)
}
