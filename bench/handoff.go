package bench

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// HandoffResult is the time from a release to the next holder's acquisition.
type HandoffResult struct {
	Waiters  int
	Handoff  Dist // release started → next holder's Lock returned
	Misses   int  // releases after which nobody else acquired within the step-back bound
	Timeouts int
	Elapsed  time.Duration
}

// HandoffOptions shape a hand-off run.
type HandoffOptions struct {
	// Waiters is how many goroutines wait at each release; the run uses
	// Waiters+1 goroutines.
	Waiters int
	// Hold is the time a holder keeps the lock, long enough for the others
	// to be queued when it releases.
	Hold           time.Duration
	AcquireTimeout time.Duration
	Budget         Budget // samples and time
}

// stepBack bounds how long a releaser stays away after its release, waiting
// for another goroutine to take the lock.
const stepBack = 500 * time.Millisecond

// Handoff measures hand-off latency: the holder records the time just before
// it calls Unlock, the next holder records the time its Lock returns, in the
// same process. After a release the releaser steps back until another
// goroutine has acquired (so every sample is a hand-off to a waiter, not the
// releaser re-acquiring), then queues again.
func Handoff(ctx context.Context, s *Subject, key string, o HandoffOptions) (HandoffResult, error) {
	n := o.Waiters + 1
	lockers := make([]Locker, n)
	for g := range lockers {
		l, err := s.Contender(g)
		if err != nil {
			return HandoffResult{}, err
		}
		lockers[g] = l
	}
	if err := pair(ctx, lockers[0], key); err != nil {
		return HandoffResult{}, fmt.Errorf("%s: warm-up: %w", s.Name, err)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var (
		mu          sync.Mutex
		relAt       time.Time
		relBy       = -1
		samples     []time.Duration
		misses      int
		timeouts    int
		acquiredGen = make(chan struct{}) // closed and replaced at each acquisition
		lastHolder  = -1
		wg          sync.WaitGroup
		start       = time.Now()
	)
	timer := time.AfterFunc(o.Budget.Time, stop)
	defer timer.Stop()
	for g, l := range lockers {
		wg.Go(func() {
			for runCtx.Err() == nil {
				lctx, cancel := context.WithTimeout(runCtx, o.AcquireTimeout)
				u, err := l.Lock(lctx, key)
				now := time.Now()
				cancel()
				if err != nil {
					if runCtx.Err() != nil {
						return
					}
					mu.Lock()
					timeouts++
					mu.Unlock()
					continue
				}
				mu.Lock()
				if relBy >= 0 && relBy != g {
					samples = append(samples, now.Sub(relAt))
					if len(samples) >= o.Budget.Ops {
						stop()
					}
				}
				relBy = -1
				lastHolder = g
				close(acquiredGen)
				acquiredGen = make(chan struct{})
				mu.Unlock()

				time.Sleep(o.Hold)

				mu.Lock()
				relAt, relBy = time.Now(), g
				mu.Unlock()
				_ = u(context.WithoutCancel(runCtx))

				// Step back until someone else holds the lock.
				deadline := time.NewTimer(stepBack)
				for {
					mu.Lock()
					other, ch := lastHolder != g, acquiredGen
					mu.Unlock()
					if other {
						break
					}
					select {
					case <-ch:
						continue
					case <-deadline.C:
						mu.Lock()
						misses++
						mu.Unlock()
					case <-runCtx.Done():
					}
					break
				}
				deadline.Stop()
			}
		})
	}
	wg.Wait()
	return HandoffResult{
		Waiters: o.Waiters, Handoff: distOf(samples), Misses: misses, Timeouts: timeouts,
		Elapsed: time.Since(start),
	}, nil
}
