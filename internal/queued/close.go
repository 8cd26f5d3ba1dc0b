package queued

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
)

// Add registers l, a lease an attempt has just taken, among the held
// leases that Close ends. Once Close has begun it releases l instead
// (bounded by CleanupTimeout) and returns an error wrapping
// [executor.ErrClosed]: no lease is handed out after Close has taken the
// held ones.
func (c *Core[L]) Add(l L) error {
	if c.held.Add(l) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.cleanup)
	defer cancel()
	_ = c.st.Release(ctx, l)
	return c.ClosedErr("acquire", l.Key())
}

// Forget unregisters l: it was released, or its release was deferred.
func (c *Core[L]) Forget(l L) { c.held.Remove(l) }

// Deferred forgets l once err, the error of the renewal that set its
// lease to end by itself (a deferred release, [executor.DeferredReleaser]),
// is nil: the lease is done, and Close has nothing to release. It returns
// err.
func (c *Core[L]) Deferred(l L, err error) error {
	if err == nil {
		c.held.Remove(l)
	}
	return err
}

// Settle forgets l when err, the error of a renewal or release of l, says
// that l is no longer held ([executor.ErrLockNotHeld]), and returns err.
func (c *Core[L]) Settle(l L, err error) error {
	if err != nil && errors.Is(err, executor.ErrLockNotHeld) {
		c.held.Remove(l)
	}
	return err
}

// Close ends the executor's shared part, once; later calls return nil at
// once. In order:
//
//   - under the core's lock: [Core.Closed] becomes true, [Core.Life] ends,
//     stop runs (nil: nothing), and the background work refuses new
//     goroutines;
//   - every held lease is marked lost, with a cause wrapping
//     [executor.ErrClosed], then released with [Statements.Release]; the
//     waits are woken and the executor leaves the queues it may stand in.
//     These round trips run together, within CleanupTimeout; a lease whose
//     release fails keeps its key until its lease ends;
//   - finish runs (nil: nothing), and Close waits for the background work,
//     whose round trips end by Close's clean-up deadline too
//     ([Core.Cleanup]): a round of voids in progress goes on, voids
//     waiting for a retry get one more round, and what is left after it
//     is dropped with a warning ([Core.VoidLater]).
//
// It returns the errors of the releases that failed, joined with finish's.
func (c *Core[L]) Close(stop func(), finish func() error) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.closeBy.Store(time.Now().Add(c.cleanup))
	c.kill()
	if stop != nil {
		stop()
	}
	c.bg.Stop()
	c.mu.Unlock()
	held := c.held.Take(c.closedHeld, L.Loss)
	err := c.endHeld(held, c.waits.Close())
	if finish != nil {
		err = errors.Join(err, finish())
	}
	c.bg.Close()
	return err
}

// endHeld releases the leases held at Close and leaves the wait queues of
// keys, all within the clean-up timeout. It returns the errors of the
// releases that failed; a lock no longer held is not one.
func (c *Core[L]) endHeld(held []L, keys []string) error {
	type job struct {
		l     L
		key   string
		leave bool
	}
	jobs := make([]job, 0, len(held)+len(keys))
	for _, l := range held {
		jobs = append(jobs, job{l: l})
	}
	for _, k := range keys {
		jobs = append(jobs, job{key: k, leave: true})
	}
	return leases.EndAll(c.cleanup, jobs, func(ctx context.Context, j job) error {
		if j.leave {
			c.leave(ctx, j.key)
			return nil
		}
		if err := c.st.Release(ctx, j.l); err != nil {
			return fmt.Errorf("%s: close: releasing %q: %w", c.prefix, j.l.Key(), err)
		}
		return nil
	})
}

// Unwatch returns the stop function of a watch of key by w, which the
// executor registered with [Waits.Add]. stop runs also (when not nil)
// and unregisters w, once; later calls do nothing, and it never blocks on
// the network. When w was the executor's last watcher of key and the
// executor may stand in key's queue, it leaves the queue in the background
// after [LeaveDelay], unless another watcher of key comes first.
func (c *Core[L]) Unwatch(key string, w *Watcher, also func()) (stop func()) {
	var once sync.Once
	return func() {
		once.Do(func() {
			if also != nil {
				also()
			}
			if c.waits.Remove(key, w) {
				c.waits.LeaveLater(key, LeaveDelay, func() { c.leaveLater(key) })
			}
		})
	}
}

// leaveLater removes the executor from key's queue in the background.
func (c *Core[L]) leaveLater(key string) {
	c.bg.Go(func() {
		ctx, cancel := c.Cleanup()
		defer cancel()
		c.leave(ctx, key)
	})
}

// leave removes the executor from key's queue, best effort: an entry left
// behind costs the next waiter a claim window at worst.
func (c *Core[L]) leave(ctx context.Context, key string) {
	if err := c.st.Leave(ctx, key); err != nil {
		c.log.Debug(c.prefix+": leaving a wait queue failed; the entry is skipped when its turn comes", "key", key, "err", err)
	}
}
