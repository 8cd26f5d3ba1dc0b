package memory

import (
	"fmt"
	"slices"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/turns"
)

// entry is one key's state: its holders and the requests waiting for it,
// in arrival order. It exists while the key is held or waited for, and a
// while longer once idle (idle.go). All fields are guarded by the
// executor's mutex.
type entry struct {
	key     string
	writer  *lease   // the write lock (or mutex) holder
	shared  []*lease // read locks, or permits, oldest first
	permits int      // the semaphore's size while the key is one, else 0
	queue   []*waiter

	link turns.IdleLink[entry] // among the executor's idle entries
}

// waiter is a request waiting in a key's queue.
type waiter struct {
	req   executor.Request
	lease *lease        // set when granted
	ready chan struct{} // closed when granted
}

// mismatch returns an error when req uses the key otherwise than its
// holders and waiters do: as a lock of a semaphore, or with another number
// of permits.
func (en *entry) mismatch(req executor.Request) error {
	switch {
	case en.permits == 0 && req.Permits > 0:
		return fmt.Errorf("memory: %q is in use as a lock, not a semaphore: %w", req.Key, executor.ErrInvalidConfig)
	case en.permits > 0 && req.Permits == 0:
		return fmt.Errorf("memory: %q is in use as a semaphore of %d permits, not a lock: %w", req.Key, en.permits, executor.ErrInvalidConfig)
	case en.permits != req.Permits:
		return fmt.Errorf("memory: %q is a semaphore of %d permits, not %d: %w", req.Key, en.permits, req.Permits, executor.ErrInvalidConfig)
	}
	return nil
}

// fits reports whether req could hold the key now, queue aside: a permit
// while fewer than Permits are out, a read lock while no writer holds, a
// write lock while nobody holds.
func (en *entry) fits(req executor.Request) bool {
	switch {
	case req.Permits > 0:
		return len(en.shared) < req.Permits
	case req.Shared:
		return en.writer == nil
	}
	return en.writer == nil && len(en.shared) == 0
}

// idle reports whether nobody holds or waits for the key.
func (en *entry) idle() bool {
	return en.writer == nil && len(en.shared) == 0 && len(en.queue) == 0
}

// grant makes req a holder of the key at now.
func (e *Executor) grant(en *entry, req executor.Request, now time.Time) *lease {
	l := &lease{
		e:        e,
		key:      req.Key,
		owner:    req.Owner,
		token:    e.tokens.Add(1),
		start:    now,
		deadline: now.Add(req.TTL),
		held:     true,
	}
	e.schedule(l)
	if req.Shared || req.Permits > 0 {
		en.shared = append(en.shared, l)
	} else {
		en.writer = l
	}
	return l
}

// serve grants the waiters at the head of the queue that fit, in order:
// all the readers at the head, or one writer, or permits while any are
// left. It stops at the first that does not fit, so a waiting writer keeps
// later readers out. A closed executor grants nothing.
func (e *Executor) serve(en *entry) {
	if e.closed || len(en.queue) == 0 {
		return // nobody waits: no clock read either
	}
	now := time.Now()
	for len(en.queue) > 0 && en.fits(en.queue[0].req) {
		w := en.queue[0]
		en.queue[0] = nil
		en.queue = en.queue[1:]
		w.lease = e.grant(en, w.req, now)
		close(w.ready)
	}
}

// drop removes l from its key's holders, serves the queue and wakes the
// key's watchers. It reports whether l was a holder. The caller holds e.mu.
func (e *Executor) drop(l *lease) bool {
	if !l.held {
		return false
	}
	l.held = false
	e.unschedule(l)
	en := e.keys[l.key]
	if en.writer == l {
		en.writer = nil
	} else {
		en.shared = slices.DeleteFunc(en.shared, func(s *lease) bool { return s == l })
	}
	e.settle(l.key, en)
	if len(e.watchers) == 0 {
		return true // nobody watches any key: no second lookup
	}
	for ch := range e.watchers[l.key] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	return true
}

// leave takes w out of its key's queue, or releases what it was granted,
// after its caller gave up.
func (e *Executor) leave(en *entry, w *waiter) {
	if w.lease != nil {
		e.drop(w.lease)
		return
	}
	en.queue = slices.DeleteFunc(en.queue, func(q *waiter) bool { return q == w })
	e.settle(w.req.Key, en)
}
