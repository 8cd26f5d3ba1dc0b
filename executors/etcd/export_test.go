package etcd

import (
	"context"
	"errors"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
)

// SetPollAfter replaces e's predecessor read schedule (nil: none), for
// benchmarks that compare it; call it before e is used.
func SetPollAfter(e *Executor, d []time.Duration) { e.pollAfter = d }

// AcquireErr exposes acquireErr, the classification of a failed acquire
// round trip.
var AcquireErr = acquireErr

// ErrSessionLost exposes errSessionLost, the cause of an acquisition that
// found its shared session lost.
var ErrSessionLost = errSessionLost

// Refused exposes refused, which tells a request etcd did not apply.
var Refused = refused

// ErrNoConnection exposes errNoConnection, added to a backend error when
// the client cannot connect at all.
var ErrNoConnection = errNoConnection

// SlotCount returns how many queue entries e's table of entryLocks holds.
func SlotCount(e *Executor) int { return e.entryLocks.count() }

// SessionLease returns the lease of e's shared session for ttl, or 0.
func SessionLease(e *Executor, ttl time.Duration) clientv3.LeaseID {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s := e.sessions[seconds(ttl)]; s != nil {
		return s.id
	}
	return 0
}

// UncertainCount returns how many writes to void e's shared sessions
// hold.
func UncertainCount(e *Executor) int {
	n := 0
	for _, s := range liveSessions(e) {
		s.writes.mu.Lock()
		n += len(s.writes.m)
		s.writes.mu.Unlock()
	}
	return n
}

// NoteUncertain records, on e's shared session for ttl (granted if need
// be), an write to void of key's entry by owner, as a write with a lost
// reply does, and returns the session's lease.
func NoteUncertain(ctx context.Context, e *Executor, key, owner string, ttl time.Duration) (clientv3.LeaseID, error) {
	s, err := e.session(ctx, seconds(ttl))
	if err != nil {
		return 0, err
	}
	q := newQueue(e.prefix + key)
	s.noteVoid(voidWrite{entryLock: entryKey{lease: s.id, pfx: q.dir}, entry: q.entry(s.id), owner: owner})
	return s.id, nil
}

// SweepNow makes one void round of the writes to void of e's shared sessions
// at once.
func SweepNow(e *Executor) {
	for _, s := range liveSessions(e) {
		s.voidRound()
	}
}

// LoseSessions marks e's shared sessions lost, as a keep-alive unanswered
// by the lease's end by the local clock does, without revoking their
// leases; it returns those leases, which the caller revokes.
func LoseSessions(e *Executor) []clientv3.LeaseID {
	var ids []clientv3.LeaseID
	for _, s := range liveSessions(e) {
		s.lose(errors.New("test: lost by the local clock"))
		ids = append(ids, s.id)
	}
	return ids
}

// TryOnLostSession runs an attempt at req on e's shared session for
// req.TTL that is marked lost after the attempt took the entry's entryLock and
// before it writes: the window between Acquire picking a session and its
// write. It returns the attempt's outcome and the session's lease, which
// the caller revokes.
func TryOnLostSession(ctx context.Context, e *Executor, req executor.Request) (executor.Lease, clientv3.LeaseID, error) {
	s, err := e.session(ctx, seconds(req.TTL))
	if err != nil {
		return nil, 0, err
	}
	ref := leaseRef{id: s.id, sess: s}
	q := newQueue(e.prefix + req.Key)
	unlock, err := e.entryLocks.lock(ctx, entryKey{lease: s.id, pfx: q.dir}, false, ref.gone())
	if err != nil {
		return nil, s.id, err
	}
	s.lose(errors.New("test: lost during the attempt"))
	l, err := e.attempt(ctx, req, q, ref, 0, unlock)
	return l, s.id, err
}

// liveSessions returns e's shared sessions.
func liveSessions(e *Executor) []*session {
	e.mu.Lock()
	defer e.mu.Unlock()
	ss := make([]*session, 0, len(e.sessions))
	for _, s := range e.sessions {
		ss = append(ss, s)
	}
	return ss
}

// KeyWaiters returns how many waits share e's watch of the etcd key key
// (keywatch.go), and how many shared watches e has open.
func KeyWaiters(e *Executor, key string) (waits, watches int) {
	ks := &e.keyWatches
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if w := ks.m[key]; w != nil {
		waits = len(w.subs)
	}
	return waits, len(ks.m)
}

// SessionEntry returns the etcd key of the entry of a lock of key under
// e's shared session for ttl.
func SessionEntry(e *Executor, key string, ttl time.Duration) string {
	return newQueue(e.prefix + key).entry(SessionLease(e, ttl))
}
