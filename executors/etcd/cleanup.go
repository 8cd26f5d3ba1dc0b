package etcd

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/internal/lifecycle"
)

// Clean-up retries in the background back off from cleanupBackoff to
// cleanupMaxBackoff.
const (
	cleanupBackoff    = 50 * time.Millisecond
	cleanupMaxBackoff = 2 * time.Second
)

// void removes what an unsuccessful attempt (or a failed release)
// may have left: for a shared lease the entry own, guarded by its create
// revision rev (or, when rev is unknown, by the lease: the caller holds the
// entry's entryLock, so no other attempt of this process uses it); for an
// grant the whole lease, which takes its entry with it, and any write
// still in flight fails. own is "" when nothing was written. It tries once
// with ctx if ctx is still alive, then keeps trying in the background with
// detached contexts until the entry is gone or its lease has surely ended;
// unlock runs once it is. A write under a shared lease that lands after
// this delete is left to the session's void rounds (cleanup.go).
func (e *Executor) void(ctx context.Context, own string, rev int64, ref leaseRef, unlock func()) {
	if ctx.Err() == nil {
		if err := e.remove(ctx, own, rev, ref); err == nil {
			unlock()
			return
		}
	}
	e.voidLater(own, rev, ref, unlock)
}

// voidLater is void's background half.
func (e *Executor) voidLater(own string, rev int64, ref leaseRef, unlock func()) {
	if !e.bg.Go(func() { e.removeLoop(own, rev, ref, unlock) }) {
		unlock() // closed: the shared sessions are revoked, own leases expire
	}
}

// remove makes one attempt at what void does.
func (e *Executor) remove(ctx context.Context, own string, rev int64, ref leaseRef) error {
	if ref.grant != nil {
		_, err := e.c.Revoke(ctx, ref.id)
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			return nil
		}
		return err
	}
	if own == "" {
		return nil
	}
	guard := clientv3.Compare(clientv3.CreateRevision(own), "=", rev)
	if rev == 0 {
		guard = clientv3.Compare(clientv3.LeaseValue(own), "=", ref.id)
	}
	_, err := e.c.Txn(ctx).If(guard).Then(clientv3.OpDelete(own)).Commit()
	return err
}

// removeLoop retries remove until it succeeds, the lease has surely ended
// (its keys go with it), or the executor is closed; then it runs unlock.
func (e *Executor) removeLoop(own string, rev int64, ref leaseRef, unlock func()) {
	defer unlock()
	backoff := lifecycle.Backoff{Min: cleanupBackoff, Max: cleanupMaxBackoff}
	for n := 1; ; n++ {
		if ref.sess != nil && ref.sess.lost.Err() != nil {
			return // no longer kept alive: the lease and its entries end
		}
		if ref.grant != nil && time.Now().After(ref.grant.end()) {
			return
		}
		ctx, cancel := e.detached()
		err := e.remove(ctx, own, rev, ref)
		cancel()
		if err == nil || e.life.Err() != nil {
			return
		}
		if n == 1 {
			e.log.LogAttrs(context.Background(), slog.LevelWarn, "etcd: removing an abandoned queue entry failed; retrying in the background",
				slog.String("executor", e.name), slog.String("entry", own), slog.Any("error", err))
		}
		if !backoff.Wait(e.life.Done()) {
			return
		}
	}
}

// A write of a queue entry whose reply never came may still be applied by
// etcd later: a request stuck behind a dead connection, or a proposal
// delayed inside the cluster, can land after the clean-up that deleted the
// entry (void), recreating it. Under an grant that is harmless: the
// clean-up revokes the lease, so the late write fails. Under a shared
// session it would leave an entry that the session's keep-alive renews for
// as long as the session lives, blocking the key for everyone.
//
// Nothing bounds how late such a write can land except the end of its
// lease, so the session records every write to void (entry and owner;
// owners are unique per attempt) and void rounds them until each is seen
// applied or the session ends: at voidFirst after the first record, then
// at intervals doubling up to voidMax. A void round deletes the entry only if it
// still holds the owner of the write, and only while it holds the entry's
// entryLock, so it never touches the entry of a live attempt of this
// process (whose value a late write may have overwritten); while a void round
// holds a entryLock, for one round trip, a no-wait attempt of that key in
// this process finds it busy. A write seen
// applied (its entry deleted by a void round) cannot be applied again and is
// forgotten; the others stay recorded until the session ends, when etcd
// ends every key of its lease. A late entry thus blocks its key for at most
// voidMax plus a round trip.

// Void rounds of a session's writes to void back off from voidFirst to
// voidMax.
const (
	voidFirst = time.Second
	voidMax   = 10 * time.Second
)

// voidWrite is a write of the queue entry under a shared session by
// one attempt (owner) whose outcome is unknown.
type voidWrite struct {
	entryLock entryKey
	entry     string
	owner     string
}

// voidWrites are a session's writes to void not yet seen applied. It
// is safe for concurrent use.
type voidWrites struct {
	mu      sync.Mutex
	m       map[voidWrite]struct{}
	voiding bool // a void loop runs
}

// noteVoid records w and starts the session's void loop if none runs.
func (s *session) noteVoid(w voidWrite) {
	u := &s.writes
	u.mu.Lock()
	if u.m == nil {
		u.m = map[voidWrite]struct{}{}
	}
	u.m[w] = struct{}{}
	start := !u.voiding
	u.voiding = true
	u.mu.Unlock()
	if start {
		// After Close nothing starts: the session is revoked, and every
		// entry under it goes with the lease.
		_ = s.e.bg.Go(s.voidLoop)
	}
}

// voidLoop runs void rounds until no write to void is left, the session ends or
// the executor is closed.
func (s *session) voidLoop() {
	delay := voidFirst
	timer := time.NewTimer(delay)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
		case <-s.lost.Done():
			return // no longer kept alive: its entries end with the lease
		case <-s.e.life.Done():
			return // Close revokes the session
		}
		if !s.voidRound() {
			return
		}
		delay = min(2*delay, voidMax)
		timer.Reset(delay)
	}
}

// void round makes one pass over the writes to void. It reports whether any
// are left; when none are, the void loop is marked stopped in the same step,
// so a write recorded after starts a new one.
func (s *session) voidRound() bool {
	u := &s.writes
	u.mu.Lock()
	ws := make([]voidWrite, 0, len(u.m))
	for w := range u.m {
		ws = append(ws, w)
	}
	u.mu.Unlock()
	for _, w := range ws {
		if s.lost.Err() != nil || s.e.life.Err() != nil {
			break
		}
		if s.voidOne(w) {
			u.mu.Lock()
			delete(u.m, w)
			u.mu.Unlock()
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.voiding = len(u.m) > 0
	return u.voiding
}

// voidOne deletes w's entry if it holds w's owner, and reports whether it
// did: the write was applied then, and is settled. It skips the entry
// while an attempt of this process holds its entryLock.
func (s *session) voidOne(w voidWrite) bool {
	unlock, err := s.e.entryLocks.lock(s.e.life, w.entryLock, false, s.lost.Done())
	if err != nil {
		return false // in use here, or the session ended: not now
	}
	defer unlock()
	ctx, cancel := s.e.detached()
	defer cancel()
	resp, err := s.e.c.Txn(ctx).
		If(clientv3.Compare(clientv3.Value(w.entry), "=", w.owner)).
		Then(clientv3.OpDelete(w.entry)).
		Commit()
	if err != nil || !resp.Succeeded {
		return false
	}
	s.e.log.LogAttrs(context.Background(), slog.LevelWarn, "etcd: removed a queue entry written late by an abandoned attempt",
		slog.String("executor", s.e.name), slog.String("entry", w.entry))
	return true
}
