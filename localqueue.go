package lock4go

import (
	"context"
	"fmt"
	"sync"
)

// localQueue makes goroutines of one process that want the same key take
// turns before they touch the backend, so the backend sees one waiter per
// process and key however many goroutines wait (Baidu DLock's local queue).
// Blocked goroutines are served in FIFO order (a channel's send queue).
type localQueue struct {
	mu    sync.Mutex
	slots map[string]*slot
}

// slot is one key's turn: a token channel of capacity one, and a count of
// goroutines holding or waiting for it, so idle slots are dropped.
type slot struct {
	q    *localQueue
	name string
	ch   chan struct{}
	refs int
}

// turn is one goroutine's hold of a slot; releasing it is idempotent.
type turn struct {
	s    *slot
	once sync.Once
}

// acquire takes name's turn, waiting until ctx ends unless try is set.
func (q *localQueue) acquire(ctx context.Context, name string, try bool) (*turn, error) {
	q.mu.Lock()
	if q.slots == nil {
		q.slots = map[string]*slot{}
	}
	s := q.slots[name]
	if s == nil {
		s = &slot{q: q, name: name, ch: make(chan struct{}, 1)}
		q.slots[name] = s
	}
	s.refs++
	q.mu.Unlock()

	select {
	case s.ch <- struct{}{}:
		return &turn{s: s}, nil
	default:
	}
	if !try {
		select {
		case s.ch <- struct{}{}:
			return &turn{s: s}, nil
		case <-ctx.Done():
		}
	}
	q.drop(s)
	if try {
		return nil, fmt.Errorf("%w: held by this process", ErrNotAcquired)
	}
	return nil, fmt.Errorf("%w: waiting behind this process's holder: %w", ErrNotAcquired, context.Cause(ctx))
}

// release gives the turn to the next goroutine. It is idempotent and
// accepts nil.
func (q *localQueue) release(tn *turn) {
	if tn == nil {
		return
	}
	tn.once.Do(func() {
		<-tn.s.ch
		q.drop(tn.s)
	})
}

func (q *localQueue) drop(s *slot) {
	q.mu.Lock()
	s.refs--
	if s.refs == 0 {
		delete(q.slots, s.name)
	}
	q.mu.Unlock()
}
