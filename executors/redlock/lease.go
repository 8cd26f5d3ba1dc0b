package redlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// lease is a lock held on a majority of an [Executor]'s masters. It is
// safe for concurrent use.
type lease struct {
	e     *Executor
	key   string
	token int64     // set before Acquire returns, then read-only
	start time.Time // the acquisition's start less the drift

	mu sync.Mutex
	// nodes holds, per master, its lease while the master may hold the
	// key for this owner; nil for a master that refused it, lost it or
	// released it.
	nodes []executor.Lease
	done  bool // released or abandoned: late grants are released at once
}

var _ executor.Lease = (*lease)(nil)

// Token returns the fencing token: the largest token of the majority that
// granted the lock (see [Executor.Acquire]).
func (l *lease) Token() int64 { return l.token }

// Start returns the time the acquisition began less the drift of the lease
// ([Options.DriftFactor]): the Template ends the lock at Start plus the
// TTL (less its own margin), within the validity of the majority's grants.
func (l *lease) Start() time.Time { return l.start }

// AfterLost implements [executor.Lease]: loss is found by renewals and the
// local clock.
func (l *lease) AfterLost(func()) (stop func() bool) { return executor.NeverLost }

// adopt keeps the late grant nl of master i, unless the lease is done; it
// reports whether it did.
func (l *lease) adopt(i int, nl executor.Lease) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return false
	}
	l.nodes[i] = nl
	return true
}

// held returns the indexes and leases of the masters that may hold the key.
func (l *lease) held() ([]int, []executor.Lease) {
	l.mu.Lock()
	defer l.mu.Unlock()
	idx := make([]int, 0, len(l.nodes))
	ls := make([]executor.Lease, 0, len(l.nodes))
	for i, nl := range l.nodes {
		if nl != nil {
			idx = append(idx, i)
			ls = append(ls, nl)
		}
	}
	return idx, ls
}

// drop forgets master i's lease, found gone.
func (l *lease) drop(i int) {
	l.mu.Lock()
	l.nodes[i] = nil
	l.mu.Unlock()
}

// finishAll marks the lease done and returns the leases of the masters
// that may hold the key, forgetting them.
func (l *lease) finishAll() []executor.Lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = true
	var ls []executor.Lease
	for i, nl := range l.nodes {
		if nl != nil {
			ls = append(ls, nl)
			l.nodes[i] = nil
		}
	}
	return ls
}

// abandon releases every grant of a failed acquisition, in parallel, even
// when ctx has ended.
func (l *lease) abandon(ctx context.Context) {
	ls := l.finishAll()
	if len(ls) == 0 {
		return
	}
	cctx, cancel := l.e.cleanupContext(ctx)
	defer cancel()
	each(len(ls), func(i int) {
		if err := ls[i].Release(cctx); err != nil && !errors.Is(err, executor.ErrLockNotHeld) {
			l.e.opts.Logger.Warn("redlock: releasing a grant of a failed acquisition failed; the master keeps the key until its TTL", "key", l.key, "err", err)
		}
	})
}

// Renew extends the lease on every master that holds it, in parallel, each
// to ttl plus [Options.MinDrift] (so that the Template's end of the lock,
// counted from before the renewal, stays within the masters' TTLs). It
// succeeds when a majority renewed. It returns an error wrapping
// executor.ErrLockNotHeld when fewer than a majority can still hold the
// key, and one wrapping executor.ErrBackend when the masters that did not
// answer could make the difference.
func (l *lease) Renew(ctx context.Context, ttl time.Duration) error {
	idx, ls := l.held()
	errs := make([]error, len(ls))
	each(len(ls), func(j int) { errs[j] = ls[j].Renew(ctx, ttl+l.e.opts.MinDrift) })
	return l.renewed(idx, errs)
}

// renewed counts the outcome of renewing the masters idx (errs in the same
// order), forgets the masters found gone and returns the renewal's error.
func (l *lease) renewed(idx []int, errs []error) error {
	for j, err := range errs {
		if errors.Is(err, executor.ErrLockNotHeld) {
			l.drop(idx[j])
		}
	}
	return l.verdict("renew", errs)
}

// verdict returns the error of a renewal or release whose masters answered
// errs: nil when a majority succeeded; executor.ErrLockNotHeld when fewer
// than a majority can still hold the key; else the first backend error.
func (l *lease) verdict(op string, errs []error) error {
	ok, gone := 0, 0
	var first error
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, executor.ErrLockNotHeld):
			gone++
		default:
			first = cmpErr(first, err)
		}
	}
	q := l.e.quorum
	switch {
	case ok >= q:
		return nil
	case len(errs)-gone < q:
		return fmt.Errorf("redlock: %s %q: held on %d of %d masters, a majority is %d: %w", op, l.key, len(errs)-gone, len(l.nodes), q, executor.ErrLockNotHeld)
	}
	return fmt.Errorf("redlock: %s %q: done on %d of %d masters, a majority is %d: %w", op, l.key, ok, len(l.nodes), q, first)
}

// Release releases the key on every master that may hold it, in parallel,
// each by owner (compare and hand off, waking that master's longest
// waiter), and waits for their answers (returning on a majority would
// leave the key held on the others while this process tries again, which
// costs more than it saves). A master whose grant comes later is released
// when it comes. It returns nil when a majority still held the lock and
// released it; an error wrapping executor.ErrLockNotHeld when fewer than a
// majority still held it (the lock may have been taken by another owner
// meanwhile); one wrapping executor.ErrBackend when masters that did not
// answer could make the difference. A ctx that has already ended is
// replaced by a detached one bounded by the clean-up timeout.
func (l *lease) Release(ctx context.Context) error {
	ls := l.finishAll()
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = l.e.cleanupContext(ctx)
		defer cancel()
	}
	errs := make([]error, len(ls))
	each(len(ls), func(j int) { errs[j] = ls[j].Release(ctx) })
	return l.verdict("release", errs)
}
