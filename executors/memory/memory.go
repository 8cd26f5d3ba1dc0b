package memory

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/turns"
)

// Options configures an [Executor]. The zero value is ready to use.
type Options struct {
	// Name is the executor's name in a Template. Zero means "memory".
	Name string
	// Priority orders executors in a Template; lower is preferred. Zero
	// means [Priority].
	Priority int
}

// Executor is an in-process lock table. It is safe for concurrent use.
// [Executor.Close] ends it.
type Executor struct {
	name     string
	priority int
	tokens   atomic.Int64

	mu       sync.Mutex
	keys     map[string]*entry
	idle     turns.IdleList[entry, *entry] // idle entries still in keys, oldest first
	free     []*entry                      // entries out of keys kept for reuse
	exp      expiries
	watchers map[string]map[chan struct{}]struct{}
	closed   bool
	done     chan struct{} // closed by Close
}

var (
	_ executor.Executor      = (*Executor)(nil)
	_ executor.Waiter        = (*Executor)(nil)
	_ executor.Inspector     = (*Executor)(nil)
	_ executor.ForceReleaser = (*Executor)(nil)
)

// New returns an empty in-process executor.
func New(opts Options) *Executor {
	e := &Executor{
		name:     opts.Name,
		priority: opts.Priority,
		keys:     map[string]*entry{},
		watchers: map[string]map[chan struct{}]struct{}{},
		done:     make(chan struct{}),
	}
	if e.name == "" {
		e.name = "memory"
	}
	if e.priority == 0 {
		e.priority = Priority
	}
	return e
}

// Name implements [executor.Executor].
func (e *Executor) Name() string { return e.name }

// Priority implements [executor.Executor].
func (e *Executor) Priority() int { return e.priority }

// Acquire implements [executor.Executor]. A request that finds the key busy
// returns at once without req.Wait, and otherwise waits in the key's queue,
// in arrival order, until it is granted, req.WaitUntil passes or ctx ends.
// The head of the queue is granted as soon as it fits: all readers at the
// head together, one writer, or permits while any are left; a waiting
// writer keeps readers that came after it out.
func (e *Executor) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	if ctx.Err() != nil {
		return nil, fmt.Errorf("memory: acquire %q: %w", req.Key, executor.GaveUp(ctx))
	}
	if err := req.ValidateFor(e.Capabilities()); err != nil {
		return nil, fmt.Errorf("memory: acquire: %w", err)
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, closedErr("acquire", req.Key)
	}
	en, err := e.entry(req)
	if err != nil {
		e.mu.Unlock()
		return nil, err
	}
	if len(en.queue) == 0 && en.fits(req) {
		l := e.grant(en, req, time.Now())
		e.mu.Unlock()
		return l, nil
	}
	if !req.Wait {
		e.mu.Unlock()
		return nil, fmt.Errorf("memory: %q: %w", req.Key, executor.ErrNotAcquired)
	}
	w := &waiter{req: req, ready: make(chan struct{})}
	en.queue = append(en.queue, w)
	e.mu.Unlock()
	return e.wait(ctx, en, w)
}

// wait waits for w's grant until its WaitUntil or ctx's end.
func (e *Executor) wait(ctx context.Context, en *entry, w *waiter) (executor.Lease, error) {
	var until <-chan time.Time
	if !w.req.WaitUntil.IsZero() {
		t := time.NewTimer(time.Until(w.req.WaitUntil))
		defer t.Stop()
		until = t.C
	}
	var gaveUp error
	select {
	case <-w.ready:
		return w.lease, nil
	case <-until:
		gaveUp = fmt.Errorf("memory: %q: waited until %v: %w", w.req.Key, w.req.WaitUntil.Format(time.RFC3339Nano), executor.ErrNotAcquired)
	case <-ctx.Done():
		gaveUp = fmt.Errorf("memory: acquire %q: %w", w.req.Key, executor.GaveUp(ctx))
	case <-e.done:
		gaveUp = closedErr("acquire", w.req.Key)
	}
	e.mu.Lock()
	e.leave(en, w)
	e.mu.Unlock()
	return nil, gaveUp
}

// Capabilities implements [executor.Executor]: the executor never blocks on
// I/O, so the Template need not bound its calls with deadlines, and it has
// read locks and semaphores.
func (e *Executor) Capabilities() executor.Capabilities {
	return executor.Capabilities{InProcess: true, Wait: executor.WaitInAcquire, SharedLocks: true, Semaphores: true}
}

// WatchRelease implements [executor.Waiter]: the channel receives a value
// after every release or expiry of key until stop is called, and at once
// once the executor is closed. The Template never calls it on this
// executor, whose waiters wait inside Acquire ([executor.WaitInAcquire]);
// it stays for code that tries the executor without waiting (requests
// without Wait) and wants to know when to try again, and for the
// conformance suite's wake-up case and the Template's tests of the polling
// model, which present the executor as one that polls.
func (e *Executor) WatchRelease(_ context.Context, key string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		ch <- struct{}{}
		return ch, func() {}
	}
	ws := e.watchers[key]
	if ws == nil {
		ws = map[chan struct{}]struct{}{}
		e.watchers[key] = ws
	}
	ws[ch] = struct{}{}
	e.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			e.mu.Lock()
			delete(ws, ch)
			if len(ws) == 0 && e.watchers[key] != nil && len(e.watchers[key]) == 0 {
				delete(e.watchers, key)
			}
			e.mu.Unlock()
		})
	}
}

// Inspect implements [executor.Inspector]: the write lock's holder, or
// every read lock or permit, oldest first, with the semaphore's n; Waiters
// counts the requests queued in the executor (one per Template waiting for
// a lock, one per call waiting for a read lock or permit).
func (e *Executor) Inspect(_ context.Context, key string) (executor.Holder, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return executor.Holder{}, closedErr("inspect", key)
	}
	en := e.keys[key]
	if en == nil || en.writer == nil && len(en.shared) == 0 {
		return executor.Holder{}, fmt.Errorf("memory: inspect %q: %w", key, executor.ErrLockNotHeld)
	}
	kind, holders := executor.KindLock, []*lease{en.writer}
	switch {
	case en.writer != nil:
	case en.permits > 0:
		kind, holders = executor.KindPermits, en.shared
	default:
		kind, holders = executor.KindRead, en.shared
	}
	hs := make([]executor.Holder, len(holders))
	for i, l := range holders {
		hs[i] = executor.Holder{Owner: l.owner, Token: l.token, TTL: time.Until(l.deadline)}
	}
	return executor.NewHolder(kind, en.permits, hs, len(en.queue)), nil
}

// ForceRelease implements [executor.ForceReleaser]: it removes the lock (or
// the read lock or permit) of key whose owner and token are h's, and ends
// its lease as an expiry does (Lost closes).
func (e *Executor) ForceRelease(_ context.Context, key string, h executor.Holder) error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return closedErr("force release", key)
	}
	var l *lease
	if en := e.keys[key]; en != nil {
		for _, c := range append([]*lease{en.writer}, en.shared...) {
			if c != nil && c.owner == h.Owner && c.token == h.Token {
				l = c
			}
		}
	}
	if l == nil {
		e.mu.Unlock()
		return fmt.Errorf("memory: force release %q: %w", key, executor.ErrLockNotHeld)
	}
	e.drop(l)
	run := l.loss.End(errForced)
	e.mu.Unlock()
	run()
	return nil
}

// Priority is the executor's default priority ([executor.Executor]): when a
// Template has several executors and none is chosen, the lowest wins. The
// built-in defaults prefer Redis (100), then ZooKeeper (200), etcd (300)
// and memory (400).
const Priority = 400
