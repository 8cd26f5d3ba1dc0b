package lock4go

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// LockAll acquires every key in keys, or none: Lock4j's several locks on one
// method, Curator's InterProcessMultiLock. Keys are taken in one canonical
// order (sorted by bytes), so that callers with overlapping sets never
// deadlock, and all of them within one acquire timeout. Duplicate keys
// collapse into one; an empty list is [ErrInvalidKey]. On a backend with
// round trips, LockAll first tries every key at once (one round trip for the
// lot when none is busy), keeps the keys before the first busy one and
// waits from there in order.
//
// On failure every key taken is released and the error is the failing key's
// [*AcquireError]. The returned Lock stands for all keys: [Lock.Keys] lists
// them, [Lock.TokenOf] gives each fence, [Lock.Done] closes when any of them
// is lost or on release, and [Lock.Release] releases all. Keys that ctx
// already carries (inside Do or DoAll) are re-entered.
func (t *Template) LockAll(ctx context.Context, keys []string, opts ...LockOption) (*Lock, error) {
	keys, err := canonicalKeys(keys)
	if err != nil {
		return nil, err
	}
	o, r, err := t.options(opts)
	if err != nil {
		return nil, err
	}
	if len(keys) == 1 {
		return t.Lock(ctx, keys[0], opts...)
	}
	start := time.Now()
	deadline := start.Add(o.acquireTimeout)
	locks := make([]*Lock, 0, len(keys))
	if !r.caps.InProcess {
		locks = t.tryAll(ctx, keys, opts)
	}
	// Wait for the rest in order, each within what is left of the timeout.
	wait := make([]LockOption, len(opts), len(opts)+1)
	copy(wait, opts)
	wait = append(wait, LockOption{})
	for _, key := range keys[len(locks):] {
		// What is left of the timeout; none left is one attempt (a zero
		// WithAcquireTimeout would mean the whole default again).
		left := time.Until(deadline)
		wait[len(wait)-1] = WithAcquireTimeout(left)
		try := o.noWait || left <= 0
		if try {
			wait[len(wait)-1] = NoWait()
		}
		l, err := t.lock(ctx, key, wait, try)
		if err != nil {
			t.releaseAll(ctx, locks)
			return nil, err
		}
		locks = append(locks, l)
	}
	return newLockSet(locks), nil
}

// DoAll runs fn while holding every key in keys (see [Template.LockAll]) and
// releases them afterwards, also when fn panics. fn's context carries all
// the keys, for re-entry, and is cancelled with cause [ErrLockLost] when any
// of them is lost; DoAll's error then wraps ErrLockLost too, as [Template.Do]
// does.
func (t *Template) DoAll(ctx context.Context, keys []string, fn func(ctx context.Context) error, opts ...LockOption) error {
	if fn == nil {
		return fmt.Errorf("%w: DoAll with a nil function", ErrInvalidConfig)
	}
	l, err := t.LockAll(ctx, keys, opts...)
	if err != nil {
		return err
	}
	return t.run(ctx, l, fn)
}

// canonicalKeys validates keys and returns them sorted, without duplicates.
func canonicalKeys(keys []string) ([]string, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: no keys", ErrInvalidKey)
	}
	for _, k := range keys {
		if err := validKey(k); err != nil {
			return nil, err
		}
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	return slices.Compact(sorted), nil
}

// tryAll makes one attempt on every key at once and returns the locks of
// the longest prefix of keys it got; locks it got after the first key it
// did not get are released, since holding them while waiting for an
// earlier key would break the canonical order.
func (t *Template) tryAll(ctx context.Context, keys []string, opts []LockOption) []*Lock {
	got := make([]*Lock, len(keys))
	var wg sync.WaitGroup
	for i, key := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = t.lock(ctx, key, opts, true)
		}()
	}
	wg.Wait()
	n := slices.Index(got, nil)
	if n < 0 {
		return got
	}
	t.releaseAll(ctx, got[n+1:])
	return got[:n:n]
}

// releaseAll releases the locks of a failed LockAll, newest first; a lock
// that cannot be released ends with its lease and is logged.
func (t *Template) releaseAll(ctx context.Context, locks []*Lock) {
	for _, l := range slices.Backward(locks) {
		if l == nil {
			continue
		}
		if err := l.Release(ctx); err != nil && !errors.Is(err, ErrLockNotHeld) {
			t.cfg.Logger.LogAttrs(ctx, levelWarn, "lock4go: releasing a key of a failed LockAll failed; it ends with its lease",
				attrKey(l.Key()), attrExec(l.Executor()), attrErr(err))
		}
	}
}

// lockSet is the state of a lock of LockAll: the locks of its keys in
// canonical order, and its own end (the first loss, or the release).
type lockSet struct {
	locks []*Lock
	at    time.Time

	mu    sync.Mutex
	err   error
	done  chan struct{}
	stops []func()
}

// newLockSet returns the handle of all locks: its hold is the first key's,
// so that Key, Owner, Token and Executor answer for that key.
func newLockSet(locks []*Lock) *Lock {
	s := &lockSet{locks: locks, done: make(chan struct{})}
	for _, l := range locks {
		if l.h.acquiredAt.After(s.at) {
			s.at = l.h.acquiredAt
		}
	}
	for _, l := range locks {
		h := l.h
		if id, ok := h.onLost(s.lose); ok {
			s.mu.Lock()
			s.stops = append(s.stops, func() { h.loss.Forget(id) })
			s.mu.Unlock()
		}
	}
	return &Lock{h: locks[0].h, of: s}
}

// lose ends the set with the first key's loss.
func (s *lockSet) lose(err error) { s.end(err) }

// end records err as the set's end, once, and closes Done.
func (s *lockSet) end(err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return false
	}
	s.err = err
	close(s.done)
	return true
}

func (s *lockSet) errValue() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// check returns the set's error at now, as [Lock.Err] of each key would:
// a key past its local end is ended as lost first, and ends the set.
func (s *lockSet) check(now time.Time) error {
	if err := s.errValue(); err != nil {
		return err
	}
	for _, l := range s.locks {
		if err := l.h.check(now); isLost(err) {
			// The key's loss waiters end the set; one running on another
			// goroutine may not have yet.
			s.end(err)
			break
		}
	}
	return s.errValue()
}

// release releases every key (newest first, or all at once on a backend
// with round trips) and joins their errors.
func (s *lockSet) release(ctx context.Context) error {
	s.mu.Lock()
	stops := s.stops
	s.stops = nil
	s.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
	s.end(errReleased)
	errs := make([]error, len(s.locks))
	if s.locks[0].h.reg.caps.InProcess {
		for i, l := range slices.Backward(s.locks) {
			errs[i] = l.Release(ctx)
		}
		return errors.Join(errs...)
	}
	// Releases of a backend with round trips run at once: one round trip
	// for all keys.
	var wg sync.WaitGroup
	for i, l := range s.locks {
		wg.Go(func() { errs[i] = l.Release(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// The set as what a LockAll Lock stands for (held).

func (s *lockSet) acquired() time.Time { return s.at }

func (s *lockSet) attemptCount() int {
	n := 0
	for _, m := range s.locks {
		n += m.h.attempts
	}
	return n
}

func (s *lockSet) doneChan() <-chan struct{} {
	_ = s.check(time.Now())
	return s.done
}

func (s *lockSet) keys() []string {
	keys := make([]string, len(s.locks))
	for i, m := range s.locks {
		keys[i] = m.h.key
	}
	return keys
}

func (s *lockSet) tokenOf(key string) int64 {
	for _, m := range s.locks {
		if m.h.key == key {
			return m.h.token
		}
	}
	return 0
}

// context returns a child of parent carrying every key, cancelled with the
// first key's loss, whose Err reads each key's local end (see lockCtx).
func (s *lockSet) context(parent context.Context) (context.Context, context.CancelFunc) {
	hs := make([]*hold, len(s.locks))
	for i, l := range s.locks {
		hs[i] = l.h
	}
	return newLockCtx(parent, hs)
}
