package etcd

import (
	"context"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
)

// entryKey names one queue entry: a lock key under one lease. Two
// acquisitions of one key under one shared lease would write the same etcd
// key "<key>/<lease>", so the second would find the first's entry and take
// it for its own; a entryLock lets only one of them use the entry at a time.
type entryKey struct {
	lease clientv3.LeaseID
	pfx   string
}

// entryLock is a one-token semaphore: holding the token means owning the entry.
type entryLock struct {
	token chan struct{}
	refs  int
}

// entryLocks is the table of entries in use in this process. It is safe for
// concurrent use.
type entryLocks struct {
	mu sync.Mutex
	m  map[entryKey]*entryLock
}

// lock takes the entry k. When wait is false and the entry is in use it
// returns errBusy at once; otherwise it waits until the entry is free, ctx
// ends, or gone is closed. gone is closed when k's lease has ended (a lost
// or closed session): such an entry is never handed out again, even when
// its token is free, so lock returns errSessionLost whenever gone is
// closed, before or after the wait. The returned unlock may be called any
// number of times; the first frees the entry.
func (t *entryLocks) lock(ctx context.Context, k entryKey, wait bool, gone <-chan struct{}) (unlock func(), err error) {
	t.mu.Lock()
	if isClosed(gone) {
		// Checked under mu: dropLease runs after gone closes, so no entryLock of
		// an ended lease is made again once dropLease has run.
		t.mu.Unlock()
		return nil, errSessionLost
	}
	s := t.m[k]
	if s == nil {
		s = &entryLock{token: make(chan struct{}, 1)}
		t.m[k] = s
	}
	s.refs++
	t.mu.Unlock()

	select {
	case s.token <- struct{}{}:
		return t.taken(k, s, gone)
	default:
	}
	if !wait {
		t.drop(k, s)
		return nil, errBusy
	}
	select {
	case s.token <- struct{}{}:
		return t.taken(k, s, gone)
	case <-ctx.Done():
		t.drop(k, s)
		return nil, executor.ContextError(ctx)
	case <-gone:
		t.drop(k, s)
		return nil, errSessionLost
	}
}

// taken returns the unlock of a token just taken of s, or gives the token
// back and returns errSessionLost when gone closed meanwhile (a select with
// both ready picks either).
func (t *entryLocks) taken(k entryKey, s *entryLock, gone <-chan struct{}) (func(), error) {
	unlock := sync.OnceFunc(func() { <-s.token; t.drop(k, s) })
	if isClosed(gone) {
		unlock()
		return nil, errSessionLost
	}
	return unlock, nil
}

// drop releases one reference to s and forgets it with the last, unless
// dropLease already has.
func (t *entryLocks) drop(k entryKey, s *entryLock) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s.refs--
	if s.refs == 0 && t.m[k] == s {
		delete(t.m, k)
	}
}

// dropLease forgets every entryLock of lease id. It is called once the lease's
// session is lost or closed, after its gone channel has closed: the locks
// that still hold a entryLock are lost and may never call Release (the Template
// ends them by their Lost channel), and lock hands out no entryLock of id any
// more, so nothing can take one of these entries again.
func (t *entryLocks) dropLease(id clientv3.LeaseID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range t.m {
		if k.lease == id {
			delete(t.m, k)
		}
	}
}

// isClosed reports whether ch is closed; a nil ch never is.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
