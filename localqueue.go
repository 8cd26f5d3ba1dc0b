package lock4go

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// localQueue makes goroutines of one process that want the same key take
// turns before they touch the backend, so the backend sees one waiter per
// process and key however many goroutines wait (Baidu DLock's local queue).
// Blocked goroutines are served in FIFO order (a channel's send queue).
type localQueue struct {
	mu    sync.Mutex
	turns map[turnName]*turn
	free  []*turn // idle turns kept for reuse, at most maxFreeTurns
}

const maxFreeTurns = 64

type turnName struct{ exec, key string }

// turn is one key's turn: a token channel of capacity one, and a count of
// goroutines holding or waiting for it, so idle turns are dropped (and a few
// kept for reuse).
type turn struct {
	name   turnName
	ch     chan struct{}
	refs   int
	holder atomic.Pointer[held] // the lock held through this turn, if any
}

// acquire takes name's turn, waiting until the acquire deadline unless try
// is set. The caller releases the turn exactly once.
func (q *localQueue) acquire(w *waitContext, exec, key string, try bool) (*turn, error) {
	name := turnName{exec, key}
	q.mu.Lock()
	if q.turns == nil {
		q.turns = map[turnName]*turn{}
	}
	s := q.turns[name]
	if s == nil {
		if n := len(q.free); n > 0 {
			s, q.free = q.free[n-1], q.free[:n-1]
		} else {
			s = &turn{ch: make(chan struct{}, 1)}
		}
		s.name = name
		q.turns[name] = s
	}
	s.refs++
	q.mu.Unlock()

	select {
	case s.ch <- struct{}{}:
		return s, nil
	default:
	}
	var ctx context.Context
	if !try {
		ctx = w.bound()
		select {
		case s.ch <- struct{}{}:
			return s, nil
		case <-ctx.Done():
		}
	}
	q.mu.Lock()
	qe := &queueError{ahead: s.refs - 1, try: try}
	q.dropLocked(s)
	q.mu.Unlock()
	if !try {
		qe.cause = context.Cause(ctx)
	}
	return nil, qe
}

// queueError reports an acquisition that gave up in the local queue,
// before any attempt on the backend: at once for a call that does not
// wait, at the acquire deadline (or when the caller's context ended)
// otherwise. It wraps [ErrNotAcquired] and the wait's cause.
type queueError struct {
	ahead int  // other callers of this process holding or awaiting the key
	try   bool // the call does not wait
	cause error
}

func (e *queueError) Error() string {
	return fmt.Sprintf("%v: %s of this process ahead in the local queue", ErrNotAcquired, callers(e.ahead))
}

func (e *queueError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrNotAcquired}
	}
	return []error{ErrNotAcquired, e.cause}
}

// callers says "1 caller" or "n callers".
func callers(n int) string {
	if n == 1 {
		return "1 caller"
	}
	return fmt.Sprintf("%d callers", n)
}

// followed reports whether other goroutines wait for s behind its holder.
func (q *localQueue) followed(s *turn) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return s.refs > 1
}

// release gives the turn to the next goroutine. It accepts nil. The token
// is taken back under q.mu, with the count, so that the next goroutine
// never counts its predecessor as a follower (the receive does not block:
// the caller holds the token).
func (q *localQueue) release(s *turn) {
	if s == nil {
		return
	}
	q.mu.Lock()
	<-s.ch
	q.dropLocked(s)
	q.mu.Unlock()
}

func (q *localQueue) dropLocked(s *turn) {
	s.refs--
	if s.refs == 0 {
		delete(q.turns, s.name)
		if len(q.free) < maxFreeTurns {
			s.name = turnName{}
			q.free = append(q.free, s)
		}
	}
}

// waiting returns the number of goroutines waiting for the turn of exec's
// key (the holder of the turn, if any, not counted).
func (q *localQueue) waiting(exec, key string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.turns[turnName{exec, key}]
	if s == nil {
		return 0
	}
	return s.refs - len(s.ch)
}

// view appends each queued key to queues, by executor and key, and returns
// the locks held through a turn. Counts read while goroutines come and go
// are a moment's approximation.
func (q *localQueue) view(queues *[]KeyQueue) []*held {
	var holders []*held
	q.mu.Lock()
	for _, s := range q.turns {
		h := s.holder.Load()
		if h != nil {
			holders = append(holders, h)
		}
		waiting := s.refs
		taken := len(s.ch) > 0
		if taken {
			waiting--
		}
		if waiting > 0 || taken && h == nil {
			*queues = append(*queues, KeyQueue{Executor: s.name.exec, Key: s.name.key, Waiting: waiting, Acquiring: taken && h == nil})
		}
	}
	q.mu.Unlock()
	slices.SortFunc(*queues, func(a, b KeyQueue) int {
		return cmp.Or(cmp.Compare(a.Executor, b.Executor), cmp.Compare(a.Key, b.Key))
	})
	return holders
}
