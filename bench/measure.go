package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Budget bounds one measure by count and by time.
type Budget struct {
	// Ops is the most operations (or samples) to take.
	Ops int
	// Time is the longest the measure may run.
	Time time.Duration
}

// UncontendedResult is one goroutine locking and unlocking one key in turn.
type UncontendedResult struct {
	Pair   Dist    // Lock + Unlock, one pair
	OpsSec float64 // pairs per second
	Errors int
	// Commands are the backend commands of Counted pairs made apart,
	// untimed (zero when not counted).
	Commands Delta
	Counted  int
}

// CommandsPerPair returns the server-side commands and the sent requests
// per pair.
func (u UncontendedResult) CommandsPerPair() (server, sent float64, ok bool) {
	if u.Counted == 0 {
		return 0, 0, false
	}
	n := float64(u.Counted)
	return float64(u.Commands.Total()) / n, float64(u.Commands.Sent) / n, true
}

// Uncontended measures Lock + Unlock pairs on key from one goroutine.
func Uncontended(ctx context.Context, s *Subject, key string, b Budget) (UncontendedResult, error) {
	r, err := UncontendedAll(ctx, []*Subject{s}, func(*Subject) string { return key }, nil, b)
	return r[0], err
}

// countedPairs is how many pairs per subject [UncontendedAll] makes, untimed,
// while counting backend commands.
const countedPairs = 100

// UncontendedAll measures every subject as [Uncontended] does, one pair at
// a time in turn: each step makes one pair of every subject, in a new random
// order, so that a change in the machine's load, or work another subject's
// client left behind, falls on all of them alike. A subject stops when it
// has b.Ops pairs or its pairs add up to b.Time. With a non-nil counter,
// each subject's backend commands are first counted over countedPairs pairs
// of its own (untimed; Redis INFO left out). A subject that fails keeps a
// zero result; the first error is returned.
func UncontendedAll(ctx context.Context, subjects []*Subject, key func(*Subject) string, counter func(*Subject) Counter, b Budget) ([]UncontendedResult, error) {
	type acc struct {
		l       Locker
		lat     []time.Duration
		elapsed time.Duration
		errs    int
		done    bool
		cmds    Delta
		counted int
	}
	var first error
	fail := func(a *acc, err error) {
		a.done = true
		if first == nil {
			first = err
		}
	}
	accs := make([]acc, len(subjects))
	for i, s := range subjects {
		a := &accs[i]
		l, err := s.Contender(0)
		if err != nil {
			fail(a, fmt.Errorf("%s: %w", s.Name, err))
			continue
		}
		a.l = l
		// Warm up: connections, scripts, parent nodes, sessions.
		for range 20 {
			if err := pair(ctx, l, key(s)); err != nil {
				fail(a, fmt.Errorf("%s: warm-up: %w", s.Name, err))
				break
			}
		}
		if a.done || counter == nil {
			continue
		}
		d, err := Count(ctx, counter(s), func() error {
			for range countedPairs {
				if err := pair(ctx, l, key(s)); err != nil {
					return err
				}
			}
			return nil
		}, "info")
		if err != nil {
			fail(a, fmt.Errorf("%s: counting commands: %w", s.Name, err))
			continue
		}
		a.cmds, a.counted = d, countedPairs
	}
	deadline := time.Now().Add(time.Duration(len(subjects)+1) * b.Time)
	for busy := true; busy && ctx.Err() == nil && time.Now().Before(deadline); {
		busy = false
		for _, i := range rand.Perm(len(subjects)) {
			a := &accs[i]
			if a.done || len(a.lat) >= b.Ops || a.elapsed >= b.Time {
				continue
			}
			busy = true
			t0 := time.Now()
			err := pair(ctx, a.l, key(subjects[i]))
			took := time.Since(t0)
			a.elapsed += took
			if err != nil {
				if a.errs++; a.errs > 10 {
					fail(a, fmt.Errorf("%s: %w", subjects[i].Name, err))
				}
				continue
			}
			a.lat = append(a.lat, took)
		}
	}
	out := make([]UncontendedResult, len(subjects))
	for i, a := range accs {
		if len(a.lat) == 0 {
			continue
		}
		out[i] = UncontendedResult{Pair: distOf(a.lat), OpsSec: float64(len(a.lat)) / a.elapsed.Seconds(), Errors: a.errs, Commands: a.cmds, Counted: a.counted}
	}
	return out, first
}

func pair(ctx context.Context, l Locker, key string) error {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	u, err := l.Lock(cctx, key)
	if err != nil {
		return err
	}
	return u(cctx)
}

// ContendedResult is n goroutines taking one key in a loop.
type ContendedResult struct {
	Goroutines int
	Acquired   int     // acquisitions completed within the run
	OpsSec     float64 // acquisitions per second
	Wait       Dist    // time in Lock, for acquisitions that succeeded
	MaxWait    time.Duration
	Timeouts   int // Lock calls that gave up (acquire timeout)
	Errors     int // other errors
	MinPerG    int // fewest acquisitions of one goroutine
	MaxPerG    int // most acquisitions of one goroutine
	Violations int // times two goroutines were inside at once (must be 0)
	Elapsed    time.Duration
}

// ContendedOptions shape a contended run.
type ContendedOptions struct {
	Goroutines     int
	Duration       time.Duration
	AcquireTimeout time.Duration // per Lock call; Lock4j's default is 3s
	Hold           time.Duration // time inside the lock; zero means none
}

// Contended runs o.Goroutines goroutines that lock key, hold it for o.Hold
// and unlock it, in a loop, for o.Duration. Lock calls still waiting when the
// run ends are cancelled and not counted.
func Contended(ctx context.Context, s *Subject, key string, o ContendedOptions) (ContendedResult, error) {
	lockers := make([]Locker, o.Goroutines)
	for g := range lockers {
		l, err := s.Contender(g)
		if err != nil {
			return ContendedResult{}, err
		}
		lockers[g] = l
	}
	if err := pair(ctx, lockers[0], key); err != nil {
		return ContendedResult{}, fmt.Errorf("%s: warm-up: %w", s.Name, err)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var (
		inside   atomic.Int32
		viol     atomic.Int32
		mu       sync.Mutex
		waits    []time.Duration
		maxWait  time.Duration
		timeouts int
		errs     int
		perG     = make([]int, o.Goroutines)
		wg       sync.WaitGroup
		start    = time.Now()
	)
	timer := time.AfterFunc(o.Duration, stop)
	defer timer.Stop()
	for g, l := range lockers {
		wg.Go(func() {
			for runCtx.Err() == nil {
				lctx, cancel := context.WithTimeout(runCtx, o.AcquireTimeout)
				t0 := time.Now()
				u, err := l.Lock(lctx, key)
				w := time.Since(t0)
				cancel()
				if err != nil {
					if runCtx.Err() != nil {
						return // the run ended while waiting
					}
					mu.Lock()
					maxWait = max(maxWait, w)
					if errors.Is(err, context.DeadlineExceeded) || w >= o.AcquireTimeout {
						timeouts++
					} else {
						errs++
					}
					mu.Unlock()
					if w < time.Millisecond {
						time.Sleep(time.Millisecond) // do not spin on a failing backend
					}
					continue
				}
				if inside.Add(1) != 1 {
					viol.Add(1)
				}
				if o.Hold > 0 {
					time.Sleep(o.Hold)
				}
				inside.Add(-1)
				_ = u(context.WithoutCancel(runCtx))
				if time.Since(start) > o.Duration {
					return // acquired after the run ended: not counted
				}
				mu.Lock()
				waits = append(waits, w)
				maxWait = max(maxWait, w)
				perG[g]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	el := min(time.Since(start), o.Duration)
	r := ContendedResult{
		Goroutines: o.Goroutines, Acquired: len(waits), OpsSec: float64(len(waits)) / el.Seconds(),
		MaxWait: maxWait, Timeouts: timeouts, Errors: errs, Violations: int(viol.Load()),
		Elapsed: time.Since(start),
	}
	r.Wait = distOf(waits)
	r.MinPerG, r.MaxPerG = perG[0], perG[0]
	for _, n := range perG {
		r.MinPerG, r.MaxPerG = min(r.MinPerG, n), max(r.MaxPerG, n)
	}
	return r, nil
}
