package queued

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// What the executors over a lease table (PostgreSQL, MySQL) share beyond
// the core: the check of the database before the first attempt, the
// sweep of what crashed processes left, and how they read their rows.

// FirstCheck runs a check of the database (its objects, its rights) before
// an executor's first attempt: until the check passes, every attempt runs
// it, one at a time, and fails with its error, so that a role that could
// take a lock but not release it, or not queue for one, takes none. Once
// it passed, attempts pay nothing. The zero FirstCheck is ready to use; it
// is safe for concurrent use.
type FirstCheck struct {
	passed  atomic.Bool
	init    sync.Once
	running chan struct{} // a token: one check at a time
}

// Run runs check, unless it passed before; ctx bounds the wait for a
// check another attempt runs. Its error is check's, or
// [executor.GaveUp]'s when ctx ended first.
func (f *FirstCheck) Run(ctx context.Context, check func(ctx context.Context) error) error {
	if f.passed.Load() {
		return nil
	}
	f.init.Do(func() { f.running = make(chan struct{}, 1) })
	select {
	case f.running <- struct{}{}:
	case <-ctx.Done():
		return executor.GaveUp(ctx)
	}
	defer func() { <-f.running }()
	if f.passed.Load() {
		return nil
	}
	if err := check(ctx); err != nil {
		return err
	}
	f.passed.Store(true)
	return nil
}

// Again makes the next attempt run the check again: something it checks
// changed (a setting an operator may change while the executor runs).
func (f *FirstCheck) Again() { f.passed.Store(false) }

// Sweeper runs an executor's sweep every interval, with jitter (so that
// many processes spread their sweeps), from its first attempt until Close.
// The zero Sweeper is ready to use.
type Sweeper struct{ once sync.Once }

// Start starts, once, the goroutine that calls sweep every interval (give
// or take a quarter) with the core's life ([Core.Life]) until Close; a
// failed sweep is logged at debug level and runs again at the next turn.
func (s *Sweeper) Start(c interface {
	Go(func()) bool
	Life() context.Context
	Closed() bool
}, interval time.Duration, log func(msg string, args ...any), sweep func(ctx context.Context) error) {
	s.once.Do(func() {
		c.Go(func() {
			t := time.NewTimer(jitter(interval))
			defer t.Stop()
			for {
				select {
				case <-c.Life().Done():
					return
				case <-t.C:
				}
				if err := sweep(c.Life()); err != nil && !c.Closed() {
					log("sweep failed; it runs again later", "err", err)
				}
				t.Reset(jitter(interval))
			}
		})
	})
}

// SweepBatch bounds the keys one page of a sweep reads.
const SweepBatch = 500

// SweepPages goes once through the keys of a lease table, in order, page
// by page: stale returns up to [SweepBatch] keys after the key after (""
// for the first page) that may hold nothing live, tidy cleans one. Each
// call has timeout of its own. It ends after a page shorter than
// SweepBatch, or at the first error.
func SweepPages(ctx context.Context, timeout time.Duration,
	stale func(ctx context.Context, after string) ([]string, error),
	tidy func(ctx context.Context, key string) error) error {
	after := ""
	for {
		sctx, cancel := context.WithTimeout(ctx, timeout)
		keys, err := stale(sctx, after)
		cancel()
		if err != nil {
			return err
		}
		for _, k := range keys {
			sctx, cancel := context.WithTimeout(ctx, timeout)
			err := tidy(sctx, k)
			cancel()
			if err != nil {
				return err
			}
		}
		if len(keys) < SweepBatch {
			return nil
		}
		after = keys[len(keys)-1]
	}
}

// jitter returns d give or take a quarter.
func jitter(d time.Duration) time.Duration {
	return d*3/4 + rand.N(d/2+1)
}

// HolderKind maps the kind a lease table stores for a holder ("w" for a
// writer, "r" for a read lock, "p<n>" for a permit of a semaphore of n,
// [ShareKind]) to an [executor.Holder]'s kind and permits.
func HolderKind(kind string) (executor.Kind, int) {
	switch {
	case kind == "r":
		return executor.KindRead, 0
	case strings.HasPrefix(kind, "p"):
		n, _ := strconv.Atoi(kind[1:])
		return executor.KindPermits, n
	}
	return executor.KindLock, 0
}

// Inspected returns the description of a key from the holders a lease
// table's inspect statement returned (the writer, or the shares, oldest
// first), of the kind and with the waiters of its last row; or an error
// wrapping [executor.ErrLockNotHeld] when there are none. prefix starts
// the error.
func Inspected(prefix, key string, holders []executor.Holder, kind string, waiters int) (executor.Holder, error) {
	if len(holders) == 0 {
		return executor.Holder{}, fmt.Errorf("%s: inspect %q: %w", prefix, key, executor.ErrLockNotHeld)
	}
	h := holders[0]
	h.Holders = holders
	h.Kind, h.Permits = HolderKind(kind)
	h.Waiters = waiters
	return h, nil
}

// BackendErr is the error of a statement that failed with err under ctx,
// when the database did not say the configuration is wrong:
// [executor.ErrBackend] and err, with ctx's error and cause once ctx has
// ended (the statement's time ran out).
func BackendErr(ctx context.Context, err error) error {
	if d, ok := ctx.Deadline(); ok && ctx.Err() == nil && !time.Now().Before(d) {
		// The statement's own deadline (ctx's) can pass just before ctx's
		// timer fires; that timer is due, so wait for it.
		<-ctx.Done()
	}
	if ctx.Err() == nil {
		return fmt.Errorf("%w: %w", executor.ErrBackend, err)
	}
	return fmt.Errorf("%w: %w (%w)", executor.ErrBackend, err, executor.ContextError(ctx))
}
