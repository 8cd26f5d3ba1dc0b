package jobstest

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/jobs"
)

// testFuzz: 8 processes run one job over and over; each run reads a
// counter, yields, and writes it plus one. The counter must come out
// equal to the number of runs (ShedLock's FuzzTester): no two runs
// overlapped, and no run was counted that did not run. A tick not run
// because the backend did not answer within the attempt's bounds
// (ErrBackend: a busy machine starves the backend for seconds) is counted
// and logged with its error, not failed: the case is about exclusion.
func (s *suite) testFuzz(t *testing.T) {
	const procs = 8
	n := name(t)
	var counter, ran, skipped, unanswered atomic.Int64
	var firstUnanswered atomic.Value
	runners := make([]*jobs.Runner, procs)
	for i := range runners {
		runners[i] = s.runner(t)
	}
	var wg sync.WaitGroup
	for _, r := range runners {
		wg.Go(func() {
			for range s.o.Rounds {
				res := r.Run(t.Context(), n, func(context.Context) error {
					v := counter.Load()
					runtime.Gosched()
					time.Sleep(time.Millisecond)
					counter.Store(v + 1)
					return nil
				}, jobs.AtMostFor(long))
				switch res.Outcome {
				case jobs.Ran:
					ran.Add(1)
				case jobs.Skipped:
					skipped.Add(1)
				case jobs.NotRun:
					if !errors.Is(res.Err, lock4go.ErrBackend) {
						t.Errorf("run: %v: %v", res.Outcome, res.Err)
					} else if unanswered.Add(1) == 1 {
						firstUnanswered.Store(res.Err)
					}
				default:
					t.Errorf("run: %v: %v", res.Outcome, res.Err)
				}
			}
		})
	}
	wg.Wait()
	if counter.Load() != ran.Load() || ran.Load() == 0 {
		t.Fatalf("counter %d after %d runs (%d skipped)", counter.Load(), ran.Load(), skipped.Load())
	}
	t.Logf("%d runs, %d skipped", ran.Load(), skipped.Load())
	if n := unanswered.Load(); n > 0 {
		t.Logf("%d ticks not run: the backend did not answer (the first: %v)", n, firstUnanswered.Load())
	}
}
