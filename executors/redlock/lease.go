package redlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
)

// lease is a lock held on a majority of an [Executor]'s masters. It is
// safe for concurrent use.
type lease struct {
	e     *Executor
	key   string
	owner string
	token int64     // set before Acquire returns, then read-only
	start time.Time // the acquisition's start less the drift

	mu sync.Mutex
	// nodes holds, per master, its lease while the master may hold the
	// key for this owner; nil for a master that refused it, lost it or
	// released it.
	nodes []executor.Lease
	// inflight marks the masters whose acquire round trip is still to
	// answer (finished in the background, see Executor.finish).
	inflight []bool
	done     bool // released or abandoned: late grants are released at once

	loss leases.Loss // set by Close
}

var (
	_ executor.Lease      = (*lease)(nil)
	_ executor.LostCauser = (*lease)(nil)
)

// Token returns the fencing token: the largest token of the majority that
// granted the lock (see [Executor.Acquire]).
func (l *lease) Token() int64 { return l.token }

// Start returns the time the attempt began less the drift of the lease
// ([Options.DriftFactor]): the Template ends the lock at Start plus the
// TTL (less its own margin), within the validity of the majority's grants.
func (l *lease) Start() time.Time { return l.start }

// AfterLost implements [executor.Lease]: f runs only when
// [Executor.Close] ends the lease; other losses are found by renewals and
// the local clock.
func (l *lease) AfterLost(f func()) (stop func() bool) { return l.loss.After(f) }

// LostCause implements [executor.LostCauser]: [executor.ErrClosed] once
// Close ended the lease.
func (l *lease) LostCause() error { return l.loss.Cause() }

// lostErr is the error of op on a lease [Executor.Close] ended.
func (l *lease) lostErr(op string) error {
	return fmt.Errorf("redlock: %s %q: %w: %w", op, l.key, executor.ErrLockNotHeld, l.loss.Cause())
}

// adopt settles master i's late answer: it keeps the grant nl (nil when
// the master refused), unless the lease is done; it reports whether it
// kept it.
func (l *lease) adopt(i int, nl executor.Lease) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inflight[i] = false
	if l.done || nl == nil {
		return false
	}
	l.nodes[i] = nl
	return true
}

// wants adds the lease to wanted[i] of every master i that does not hold
// it and has no acquisition of it in flight, unless the lease is done; a
// suspect master only once per suspectProbe across the executor.
func (l *lease) wants(wanted [][]repairItem, ttl time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return
	}
	for i, nl := range l.nodes {
		if nl == nil && !l.inflight[i] && l.e.mayAsk(i) {
			wanted[i] = append(wanted[i], repairItem{l, ttl + l.e.opts.MinDrift})
		}
	}
}

// repairItem is a lease to ask a master for, and for how long.
type repairItem struct {
	l   *lease
	ttl time.Duration
}

// repair asks each master i, in the background, for the leases of
// wanted[i], one after another in one goroutine per master: an
// acquisition with the lease's owner, without waiting (see lease.repair).
// Only renewals count for a lease's majority, and repairs follow only a
// renewal that succeeded: a master taken now holds the lease from the next
// renewal on, and a lease that lost its majority is never revived by
// masters that had become free.
func (e *Executor) repair(ctx context.Context, wanted [][]repairItem) {
	for i, items := range wanted {
		if len(items) == 0 {
			continue
		}
		e.bg.Go(func() {
			rctx, cancel := e.detach(ctx, 0)
			defer cancel()
			for _, it := range items {
				if rctx.Err() != nil {
					return
				}
				_ = it.l.repair(rctx, i, it.ttl)
			}
		})
	}
}

// repair tries to take the key on master i for the lease's owner, for ttl:
// a master the acquisition did not get (busy, down, or lost since) joins
// the lease when it is free again, so that the lease is held on as many
// masters as possible and a later fault of a minority does not cost it its
// majority. A master that refuses counts as not holding the lease.
func (l *lease) repair(ctx context.Context, i int, ttl time.Duration) error {
	l.mu.Lock()
	if l.done || l.inflight[i] || l.nodes[i] != nil {
		l.mu.Unlock()
		return fmt.Errorf("redlock: repair %q: master %d is taken care of: %w", l.key, i, executor.ErrLockNotHeld)
	}
	l.inflight[i] = true
	l.mu.Unlock()
	nl, err := l.e.nodes[i].Acquire(ctx, executor.Request{Key: l.key, Owner: l.owner, TTL: ttl, Renewed: true})
	l.e.answered(i, err)
	if !l.adopt(i, nl) {
		if nl != nil {
			l.e.releaseLater(nl)
		}
		if err == nil || !errors.Is(err, executor.ErrBackend) {
			return fmt.Errorf("redlock: repair %q on master %d: %w", l.key, i, executor.ErrLockNotHeld)
		}
		return err
	}
	if nl.Token() < l.token {
		if !l.e.bg.Go(func() { l.e.raiseNow(i, l.key, l.token) }) {
			l.e.raiseNow(i, l.key, l.token)
		}
	}
	return nil
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

// drop forgets master i's lease nl, found gone, unless the master holds a
// newer one since (a repair).
func (l *lease) drop(i int, nl executor.Lease) {
	l.mu.Lock()
	if l.nodes[i] == nl {
		l.nodes[i] = nil
	}
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
	l.e.each(len(ls), func(i int) {
		if err := ls[i].Release(cctx); err != nil && !errors.Is(err, executor.ErrLockNotHeld) {
			l.e.opts.Logger.Warn("redlock: releasing a grant of a failed acquisition failed; the master keeps the key until its TTL", "key", l.key, "err", err)
		}
	})
}

// Renew extends the lease on every master that holds it, in parallel, each
// to ttl plus [Options.MinDrift] (so that the Template's end of the lock,
// counted from before the renewal, stays within the masters' TTLs). It
// succeeds when a majority renewed, and returns once the outcome is decided
// and the other masters had a short grace to answer (see gather); a master
// found gone later is dropped from the lease then. After a renewal that
// succeeded, the masters that lack the lease are asked for it (see
// Executor.repair). It returns an error wrapping executor.ErrLockNotHeld
// when fewer than a majority can still hold the key (the masters that may
// still hold it are then released), and one wrapping executor.ErrBackend
// when the masters that did not answer could make the difference.
func (l *lease) Renew(ctx context.Context, ttl time.Duration) error {
	if l.loss.Lost() {
		return l.lostErr("renew")
	}
	idx, ls := l.held()
	errs := l.e.fanOut(ctx, ls, func(ctx context.Context, nl executor.Lease) error {
		return nl.Renew(ctx, ttl+l.e.opts.MinDrift)
	}, func(a answer) {
		if notHeld(a.err) {
			l.drop(idx[a.pos], ls[a.pos])
		}
	})
	err := l.renewed(idx, ls, errs)
	if err == nil {
		wanted := make([][]repairItem, len(l.e.nodes))
		l.wants(wanted, ttl)
		l.e.repair(ctx, wanted)
	}
	return err
}

// renewed counts the outcome of renewing the masters idx, whose leases
// were ls (errs in the same order), forgets the masters found gone and
// returns the renewal's error; a lease found lost releases the rest.
func (l *lease) renewed(idx []int, ls []executor.Lease, errs []error) error {
	for j, err := range errs {
		if errors.Is(err, executor.ErrLockNotHeld) {
			l.drop(idx[j], ls[j])
		}
	}
	err := l.verdict("renew", errs)
	if errors.Is(err, executor.ErrLockNotHeld) {
		l.e.held.Remove(l)
		// Lost: the Template will not release it. The masters that may
		// still hold it are freed for the next owner now, not at their TTL.
		for _, nl := range l.finishAll() {
			l.e.releaseLater(nl)
		}
	}
	return err
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
// waiter). It returns once the outcome is decided and the other masters had
// a short grace to answer (see gather): in normal operation every master
// has released when it returns, and one that is down costs the grace, not
// its timeout (its release goes on in the background). A master whose
// grant comes later is released when it comes. It returns nil when a
// majority still held the lock and released it; an error wrapping
// executor.ErrLockNotHeld when fewer than a majority still held it (the
// lock may have been taken by another owner meanwhile); one wrapping
// executor.ErrBackend when masters that did not answer could make the
// difference. The releases run under ctx's deadline but not its
// cancellation (the clean-up timeout when ctx has none or has ended).
func (l *lease) Release(ctx context.Context) error {
	if l.loss.Lost() {
		return l.lostErr("release")
	}
	ls := l.finishAll()
	l.e.held.Remove(l) // every master's grant is released, now or in the background
	errs := l.e.fanOut(ctx, ls, func(ctx context.Context, nl executor.Lease) error { return nl.Release(ctx) }, func(answer) {})
	return l.verdict("release", errs)
}
