package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lock4go/lock4go"
)

// stepBack bounds how long a releaser stays away after its release, waiting
// for another goroutine to take the lock (a miss when it passes).
const stepBack = 500 * time.Millisecond

// handoffRun is the shared state of one hand-off measurement: W+1
// goroutines on one key through one Template. The holder records the time
// just before it calls Release, the next holder the time its Lock returned;
// after a release the releaser steps back until another goroutine holds the
// key, so every sample is a hand-off to a waiter (docs/bench.md's method).
type handoffRun struct {
	tpl  *lock4go.Template
	o    *benchOptions
	stop context.CancelFunc

	mu       sync.Mutex
	relAt    time.Time
	relBy    int           // the goroutine that released last, -1 once someone took over
	last     int           // the goroutine that acquired last
	acquired chan struct{} // closed and replaced at each acquisition
	samples  []time.Duration
	misses   int
	timeouts int
	err      error
}

// handoff measures the hand-off latency with waiters goroutines waiting.
func handoff(ctx context.Context, tpl *lock4go.Template, o *benchOptions, waiters int) (handoffDist, error) {
	ctx, cancel := context.WithTimeout(ctx, o.maxTime)
	defer cancel()
	r := &handoffRun{tpl: tpl, o: o, stop: cancel, relBy: -1, last: -1, acquired: make(chan struct{})}
	var wg sync.WaitGroup
	for g := range waiters + 1 {
		wg.Go(func() { r.loop(ctx, g) })
	}
	wg.Wait()
	if r.err != nil {
		return handoffDist{}, r.err
	}
	return handoffDist{Waiters: waiters, Misses: r.misses, Timeouts: r.timeouts, dist: distOf(r.samples)}, nil
}

// loop is goroutine g: lock, hold, release, step back, until ctx ends.
func (r *handoffRun) loop(ctx context.Context, g int) {
	for ctx.Err() == nil {
		l, err := r.tpl.Lock(ctx, r.o.key)
		now := time.Now()
		if err != nil {
			r.failed(ctx, err)
			continue
		}
		r.took(g, now)
		time.Sleep(r.o.hold) // the work under the lock
		r.mu.Lock()
		r.relAt, r.relBy = time.Now(), g
		r.mu.Unlock()
		_ = l.Release(context.WithoutCancel(ctx))
		r.stepBack(ctx, g)
	}
}

// took records goroutine g's acquisition at now, and the hand-off sample
// when another goroutine released last.
func (r *handoffRun) took(g int, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.relBy >= 0 && r.relBy != g {
		r.samples = append(r.samples, now.Sub(r.relAt))
		if len(r.samples) >= r.o.samples {
			r.stop()
		}
	}
	r.relBy, r.last = -1, g
	close(r.acquired)
	r.acquired = make(chan struct{})
}

// failed counts a Lock that failed: a timeout is counted, any other error
// ends the run.
func (r *handoffRun) failed(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if errors.Is(err, lock4go.ErrNotAcquired) {
		r.timeouts++
		return
	}
	if r.err == nil {
		r.err = err
	}
	r.stop()
}

// stepBack waits until a goroutine other than g holds the key, or
// stepBack passes (a miss).
func (r *handoffRun) stepBack(ctx context.Context, g int) {
	deadline := time.NewTimer(stepBack)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		other, ch := r.last != g, r.acquired
		r.mu.Unlock()
		if other {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			r.mu.Lock()
			r.misses++
			r.mu.Unlock()
			return
		case <-ctx.Done():
			return
		}
	}
}
