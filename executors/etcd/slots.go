package etcd

import (
	"context"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// slotKey names one queue entry: a lock key under one lease. Two
// acquisitions of one key under one shared lease would write the same etcd
// key "<key>/<lease>", so the second would find the first's entry and take
// it for its own; a slot lets only one of them use the entry at a time.
type slotKey struct {
	lease clientv3.LeaseID
	pfx   string
}

// slot is a one-token semaphore: holding the token means owning the entry.
type slot struct {
	token chan struct{}
	refs  int
}

// slots is the table of entries in use in this process. It is safe for
// concurrent use.
type slots struct {
	mu sync.Mutex
	m  map[slotKey]*slot
}

// lock takes the entry k. When wait is false and the entry is in use it
// returns errBusy at once; otherwise it waits until the entry is free, ctx
// ends, or gone is closed (the lease ended: the entry can no longer be used).
// The returned unlock may be called any number of times; the first frees
// the entry.
func (t *slots) lock(ctx context.Context, k slotKey, wait bool, gone <-chan struct{}) (unlock func(), err error) {
	t.mu.Lock()
	s := t.m[k]
	if s == nil {
		s = &slot{token: make(chan struct{}, 1)}
		t.m[k] = s
	}
	s.refs++
	t.mu.Unlock()

	select {
	case s.token <- struct{}{}:
		return sync.OnceFunc(func() { <-s.token; t.drop(k, s) }), nil
	default:
	}
	if !wait {
		t.drop(k, s)
		return nil, errBusy
	}
	select {
	case s.token <- struct{}{}:
		return sync.OnceFunc(func() { <-s.token; t.drop(k, s) }), nil
	case <-ctx.Done():
		t.drop(k, s)
		return nil, ctxErr(ctx)
	case <-gone:
		t.drop(k, s)
		return nil, errSessionLost
	}
}

// drop releases one reference to s and forgets it with the last.
func (t *slots) drop(k slotKey, s *slot) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s.refs--
	if s.refs == 0 {
		delete(t.m, k)
	}
}
