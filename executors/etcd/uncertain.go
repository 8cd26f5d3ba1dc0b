package etcd

import (
	"context"
	"log/slog"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// A write of a queue entry whose reply never came may still be applied by
// etcd later: a request stuck behind a dead connection, or a proposal
// delayed inside the cluster, can land after the clean-up that deleted the
// entry (discard), recreating it. Under an own lease that is harmless: the
// clean-up revokes the lease, so the late write fails. Under a shared
// session it would leave an entry that the session's keep-alive renews for
// as long as the session lives, blocking the key for everyone.
//
// Nothing bounds how late such a write can land except the end of its
// lease, so the session records every uncertain write (entry and owner;
// owners are unique per attempt) and sweeps them until each is seen
// applied or the session ends: at sweepFirst after the first record, then
// at intervals doubling up to sweepMax. A sweep deletes the entry only if it
// still holds the uncertain owner, and only while it holds the entry's
// slot, so it never touches the entry of a live acquisition of this
// process (whose value a late write may have overwritten); while a sweep
// holds a slot, for one round trip, a no-wait acquisition of that key in
// this process finds it busy. A write seen
// applied (its entry deleted by a sweep) cannot be applied again and is
// forgotten; the others stay recorded until the session ends, when etcd
// ends every key of its lease. A late entry thus blocks its key for at most
// sweepMax plus a round trip.

// Sweeps of a session's uncertain writes back off from sweepFirst to
// sweepMax.
const (
	sweepFirst = time.Second
	sweepMax   = 10 * time.Second
)

// uncertainWrite is a write of the queue entry under a shared session by
// one acquisition (owner) whose outcome is unknown.
type uncertainWrite struct {
	slot  slotKey
	entry string
	owner string
}

// uncertainWrites are a session's uncertain writes not yet seen applied. It
// is safe for concurrent use.
type uncertainWrites struct {
	mu       sync.Mutex
	m        map[uncertainWrite]struct{}
	sweeping bool // a sweeper goroutine runs
}

// noteUncertain records w and starts the session's sweeper if none runs.
func (s *session) noteUncertain(w uncertainWrite) {
	u := &s.writes
	u.mu.Lock()
	if u.m == nil {
		u.m = map[uncertainWrite]struct{}{}
	}
	u.m[w] = struct{}{}
	start := !u.sweeping
	u.sweeping = true
	u.mu.Unlock()
	if start {
		// After Close nothing starts: the session is revoked, and every
		// entry under it goes with the lease.
		_ = s.e.bg.Go(s.sweepLoop)
	}
}

// sweepLoop sweeps until no uncertain write is left, the session ends or
// the executor is closed.
func (s *session) sweepLoop() {
	delay := sweepFirst
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
		if !s.sweep() {
			return
		}
		delay = min(2*delay, sweepMax)
		timer.Reset(delay)
	}
}

// sweep makes one pass over the uncertain writes. It reports whether any
// are left; when none are, the sweeper is marked stopped in the same step,
// so a write recorded after starts a new one.
func (s *session) sweep() bool {
	u := &s.writes
	u.mu.Lock()
	ws := make([]uncertainWrite, 0, len(u.m))
	for w := range u.m {
		ws = append(ws, w)
	}
	u.mu.Unlock()
	for _, w := range ws {
		if s.lost.Err() != nil || s.e.life.Err() != nil {
			break
		}
		if s.sweepOne(w) {
			u.mu.Lock()
			delete(u.m, w)
			u.mu.Unlock()
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.sweeping = len(u.m) > 0
	return u.sweeping
}

// sweepOne deletes w's entry if it holds w's owner, and reports whether it
// did: the write was applied then, and is settled. It skips the entry
// while an acquisition of this process holds its slot.
func (s *session) sweepOne(w uncertainWrite) bool {
	unlock, err := s.e.slots.lock(s.e.life, w.slot, false, s.lost.Done())
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
	s.e.log.LogAttrs(context.Background(), slog.LevelWarn, "etcd: removed a queue entry written late by an abandoned acquisition",
		slog.String("executor", s.e.name), slog.String("entry", w.entry))
	return true
}
