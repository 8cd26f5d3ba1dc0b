package memory

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lock4go/lock4go/executor"
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
type Executor struct {
	name     string
	priority int
	tokens   atomic.Int64

	mu       sync.Mutex
	locks    map[string]*lease
	watchers map[string]map[chan struct{}]struct{}
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
		locks:    map[string]*lease{},
		watchers: map[string]map[chan struct{}]struct{}{},
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

// Acquire implements [executor.Executor]. It never waits: the memory executor
// wakes waiters through [Executor.WatchRelease] instead.
func (e *Executor) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	if ctx.Err() != nil {
		return nil, fmt.Errorf("memory: acquire %q: %w", req.Key, executor.GaveUp(ctx))
	}
	if err := req.Validate(); err != nil {
		return nil, fmt.Errorf("memory: acquire: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, held := e.locks[req.Key]; held {
		return nil, fmt.Errorf("memory: %q: %w", req.Key, executor.ErrNotAcquired)
	}
	now := time.Now()
	l := &lease{
		e:        e,
		key:      req.Key,
		owner:    req.Owner,
		token:    e.tokens.Add(1),
		start:    now,
		deadline: now.Add(req.TTL),
	}
	l.timer = time.AfterFunc(req.TTL, l.expire)
	e.locks[req.Key] = l
	return l, nil
}

// Capabilities implements [executor.Executor]: the executor never blocks,
// so the Template need not bound its calls with deadlines.
func (e *Executor) Capabilities() executor.Capabilities {
	return executor.Capabilities{InProcess: true}
}

// WatchRelease implements [executor.Waiter]: the channel receives a value
// after every release or expiry of key until stop is called.
func (e *Executor) WatchRelease(_ context.Context, key string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	e.mu.Lock()
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

// Inspect implements [executor.Inspector].
func (e *Executor) Inspect(_ context.Context, key string) (executor.Holder, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	l, ok := e.locks[key]
	if !ok {
		return executor.Holder{}, fmt.Errorf("memory: inspect %q: %w", key, executor.ErrLockNotHeld)
	}
	return executor.Holder{
		Owner:   l.owner,
		Token:   l.token,
		TTL:     time.Until(l.deadline),
		Waiters: len(e.watchers[key]),
	}, nil
}

// remove deletes l from the table if it is still the holder, and wakes the
// key's watchers. The caller holds e.mu.
func (e *Executor) remove(l *lease) bool {
	if e.locks[l.key] != l {
		return false
	}
	delete(e.locks, l.key)
	l.timer.Stop()

	for ch := range e.watchers[l.key] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	return true
}

// ForceRelease implements [executor.ForceReleaser]: it removes key's lock if
// its owner and token are h's, and ends its lease as an expiry does (Lost
// closes).
func (e *Executor) ForceRelease(_ context.Context, key string, h executor.Holder) error {
	e.mu.Lock()
	l, ok := e.locks[key]
	if !ok || l.owner != h.Owner || l.token != h.Token {
		e.mu.Unlock()
		return fmt.Errorf("memory: force release %q: %w", key, executor.ErrLockNotHeld)
	}
	e.remove(l)
	fs := l.markLost()
	e.mu.Unlock()
	for _, lf := range fs {
		lf.f()
	}
	return nil
}

// Priority is the executor's default priority ([executor.Executor]): when a
// Template has several executors and none is chosen, the lowest wins. The
// built-in defaults prefer Redis (100), then ZooKeeper (200), etcd (300)
// and memory (400).
const Priority = 400
