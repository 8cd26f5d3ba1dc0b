package etcd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
)

// lease is one held lock: the entry key with create revision rev, under a
// shared session's lease or one of its own. It is safe for concurrent use.
type lease struct {
	e      *Executor
	key    string // the request key, for messages
	entry  string
	rev    int64
	ref    leaseRef
	unlock func() // frees the entry for this process's next acquisition

	mu        sync.Mutex
	released  bool // deleted by this handle, or found gone
	releasing bool // Release has begun: its outcome, not a check, decides
	cleaning  bool // a background delete runs after a failed Release

	// loss is set by Close (a lock with a grant of its own) or by the
	// session's entry check (a watchdog lock whose entry was deleted).
	loss leases.Loss
}

var (
	_ executor.Lease      = (*lease)(nil)
	_ executor.LostCauser = (*lease)(nil)
	_ executor.LocalEnder = (*lease)(nil)
)

// newLease returns the lock of entry; a watchdog lock joins its session's
// entry checks.
func (e *Executor) newLease(key, entry string, rev int64, ref leaseRef, unlock func()) *lease {
	l := &lease{e: e, key: key, entry: entry, rev: rev, ref: ref, unlock: unlock}
	if ref.sess != nil {
		ref.sess.held.add(l)
	}
	return l
}

// LocalEnd implements [executor.LocalEnder]: the send time of the etcd
// lease's grant or of its last keep-alive etcd answered, plus the TTL etcd
// answered with, less the safety margin. For a watchdog lock that is the
// session's end, moved by each keep-alive; for a fixed-expire lock, its
// grant's (or the renewal's after a wait in the queue).
func (l *lease) LocalEnd() time.Time {
	if l.ref.grant != nil {
		return l.ref.grant.localEnd.Load()
	}
	return l.ref.sess.end.Load()
}

// gone ends a lock whose entry the session's check found deleted (or
// written again): AfterLost's function runs, and the lock is released in
// this process (its entry lock freed for the next attempt). A lock
// being released is left to its Release.
func (l *lease) gone(cause error) {
	l.mu.Lock()
	skip := l.released || l.releasing
	l.mu.Unlock()
	if skip || !l.loss.Mark(cause) {
		return
	}
	l.e.log.LogAttrs(context.Background(), slog.LevelWarn, "etcd: lock entry deleted behind its holder; the lock is lost",
		slog.String("executor", l.e.name), slog.String("key", l.key), slog.Any("cause", cause))
	l.finish()
}

// Start implements [executor.Lease]: when the send of the grant or the
// last renewal of the entry's etcd lease started its current TTL. A fixed
// lease that waited in the queue was renewed at the grant.
func (l *lease) Start() time.Time {
	if l.ref.grant != nil {
		return l.ref.grant.start()
	}
	return l.ref.sess.renewedAt()
}

// Token implements [executor.Lease]: the entry's create revision, which
// etcd increases with every write, so it grows strictly per key across
// owners, clients and restarts.
func (l *lease) Token() int64 { return l.rev }

// isOwner is the comparison that holds while this lease holds the lock.
func (l *lease) isOwner() clientv3.Cmp {
	return clientv3.Compare(clientv3.CreateRevision(l.entry), "=", l.rev)
}

// AfterLost implements [executor.Lease] without a goroutine per lock. For
// a watchdog lock f runs when the shared session is lost (etcd reports the
// lease gone, expired or revoked, at the next keep-alive, within a third of
// the TTL; or no keep-alive was answered by the lease's local end), or when
// the session's check after a keep-alive finds the lock's entry deleted. A
// fixed-expire lock's lease simply runs out, and the Template ends the lock
// by its local clock first; f runs only if [Executor.Close] ends it.
func (l *lease) AfterLost(f func()) (stop func() bool) {
	if l.ref.sess == nil {
		return l.loss.After(f)
	}
	var state atomic.Int32 // 0 armed, 1 ran, 2 stopped
	once := func() {
		if state.CompareAndSwap(0, 1) {
			f()
		}
	}
	stopSession := context.AfterFunc(l.ref.sess.lost, once)
	stopGone := l.loss.After(once)
	return func() bool {
		session, gone := stopSession(), stopGone()
		if !session || !gone {
			return false // a loss started f
		}
		return state.CompareAndSwap(0, 2)
	}
}

// LostCause implements [executor.LostCauser]: why the lock was lost: its
// entry found deleted, [ErrClosed] for a lock with a fixed expiry that
// Close ended, or why the session of a watchdog lock was lost; nil while
// the lock is not known to be lost.
func (l *lease) LostCause() error {
	if err := l.loss.Cause(); err != nil {
		return err
	}
	if l.ref.sess == nil || l.ref.sess.lost.Err() == nil {
		return nil
	}
	return context.Cause(l.ref.sess.lost)
}

// closedErr is the error of op on a lock that Close ended or whose entry
// the session's check found deleted.
func (l *lease) closedErr(op string) error {
	return fmt.Errorf("etcd: %s %q: %w: %w", op, l.key, executor.ErrLockNotHeld, l.loss.Cause())
}

// Renew implements [executor.Lease]. etcd cannot change a lease's TTL, so
// ttl is not used: for a watchdog lock the session's keep-alive already
// renews the lease and Renew only checks that the entry is still this
// lock's; for a fixed-expire lock it also resets the grant to its
// granted TTL.
func (l *lease) Renew(ctx context.Context, _ time.Duration) error {
	if l.loss.Lost() {
		return l.closedErr("renew")
	}
	if l.isReleased() {
		return fmt.Errorf("etcd: renew %q: %w", l.key, executor.ErrLockNotHeld)
	}
	if l.ref.sess != nil && l.ref.sess.lost.Err() != nil {
		return fmt.Errorf("etcd: renew %q: %w: %w", l.key, executor.ErrLockNotHeld, context.Cause(l.ref.sess.lost))
	}
	resp, err := l.e.c.Get(ctx, l.entry, clientv3.WithKeysOnly())
	if err != nil {
		return opErr("renew", l.key, err)
	}
	if len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != l.rev {
		l.e.fixed.Remove(l)
		return fmt.Errorf("etcd: renew %q: %w", l.key, executor.ErrLockNotHeld)
	}
	if l.ref.grant != nil {
		if err := l.ref.grant.renew(ctx, l.e); errors.Is(err, errLeaseGone) {
			l.e.fixed.Remove(l)
			return fmt.Errorf("etcd: renew %q: %w: %w", l.key, executor.ErrLockNotHeld, err)
		} else if err != nil {
			return opErr("renew", l.key, err)
		}
	}
	return nil
}

// Release implements [executor.Lease]: it deletes the entry only if it
// still has this lock's create revision, so a late or repeated release
// never deletes a newer lock. A fixed-expire lock's grant is revoked
// after. When etcd cannot be reached the delete is retried in the
// background until it succeeds or the lease ends, and Release reports
// [executor.ErrBackend]. A watchdog lock whose session was already lost
// (Lost closed) is not held, whatever etcd still shows: Release deletes
// its entry all the same, best effort, and reports
// [executor.ErrLockNotHeld] (and [executor.ErrBackend] beside it when that
// delete failed).
func (l *lease) Release(ctx context.Context) error {
	if l.loss.Lost() {
		// Free the entry here too: gone may not have finished yet, and the
		// caller may take the key again as soon as Release returns.
		l.finish()
		return l.closedErr("release")
	}
	l.mu.Lock()
	done := l.released
	l.releasing = true
	l.mu.Unlock()
	if done {
		return fmt.Errorf("etcd: release %q: %w", l.key, executor.ErrLockNotHeld)
	}
	if l.ref.sess != nil && l.ref.sess.lost.Err() != nil {
		// The lease is no longer kept alive, and is being revoked: a failed
		// delete needs no retry, the entry ends with the lease.
		_, err := l.e.c.Txn(ctx).If(l.isOwner()).Then(clientv3.OpDelete(l.entry)).Commit()
		l.finish()
		lost := fmt.Errorf("etcd: release %q: %w: %w", l.key, executor.ErrLockNotHeld, context.Cause(l.ref.sess.lost))
		if err != nil {
			return fmt.Errorf("%w; deleting its entry: %w", lost, opErr("release", l.key, err))
		}
		return lost
	}
	resp, err := l.e.c.Txn(ctx).If(l.isOwner()).Then(clientv3.OpDelete(l.entry)).Commit()
	if err != nil {
		l.mu.Lock()
		start := !l.cleaning && !l.released
		l.cleaning = true
		l.mu.Unlock()
		if start {
			l.e.voidLater(l.entry, l.rev, l.ref, l.finish)
		}
		return opErr("release", l.key, err)
	}
	l.finish()
	if l.ref.grant != nil {
		// Best effort: a lease left behind has no keys and ends by TTL.
		_, _ = l.e.c.Revoke(ctx, l.ref.id)
	}
	if !resp.Succeeded {
		return fmt.Errorf("etcd: release %q: %w", l.key, executor.ErrLockNotHeld)
	}
	return nil
}

// finish marks the lock released, frees its entry in this process and
// takes it out of its session's entry checks.
func (l *lease) finish() {
	l.mu.Lock()
	l.released = true
	l.mu.Unlock()
	l.e.fixed.Remove(l)
	if l.ref.sess != nil {
		l.ref.sess.held.remove(l)
	}
	l.unlock()
}

func (l *lease) isReleased() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.released
}

// heldEntries are the locks held under one session's lease. It is safe for
// concurrent use.
type heldEntries struct {
	mu sync.Mutex
	m  map[*lease]struct{}
}

func (h *heldEntries) add(l *lease) {
	h.mu.Lock()
	if h.m == nil {
		h.m = map[*lease]struct{}{}
	}
	h.m[l] = struct{}{}
	h.mu.Unlock()
}

func (h *heldEntries) remove(l *lease) {
	h.mu.Lock()
	delete(h.m, l)
	h.mu.Unlock()
}

func (h *heldEntries) list() []*lease {
	h.mu.Lock()
	defer h.mu.Unlock()
	ls := make([]*lease, 0, len(h.m))
	for l := range h.m {
		ls = append(ls, l)
	}
	return ls
}
