package jobs_test

import (
	"cmp"
	"maps"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/lock4go/lock4go/internal/testserver"
)

// TestFleet_eachTickOnce: 4 processes, each a gocron scheduler running the
// same job every second with its clock up to 300ms late, run each tick
// exactly once: AtLeastFor 500ms covers the offsets.
func TestFleet_eachTickOnce(t *testing.T) {
	fleetBackends(t, func(t *testing.T, b *backend) {
		offsets := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}
		ins := startFleet(t, b, offsets, "-atmost", "5s", "-atleast", "500ms")
		time.Sleep(testserver.Pick(6*time.Second, 20*time.Second))
		for _, in := range ins {
			_ = in.cmd.Process.Signal(syscall.SIGTERM)
			_ = in.cmd.Wait()
		}
		ran := map[int64][]record{}
		var runs []record
		for _, in := range ins {
			for _, r := range in.records() {
				if r.Ev == "run" {
					ran[r.Tick] = append(ran[r.Tick], r)
					runs = append(runs, r)
				}
			}
		}
		checkAtLeastFor(t, runs, 500*time.Millisecond)
		ticks := slices.Sorted(maps.Keys(ran))
		if len(ticks) < 3 {
			t.Fatalf("only %d ticks ran: %v", len(ticks), ran)
		}
		// The first and last ticks may be cut by the start and the stop.
		for tick := ticks[0] + 1; tick < ticks[len(ticks)-1]; tick++ {
			checkTick(t, tick, ran[tick])
		}
		t.Logf("%d ticks; runs by process: %v", len(ticks), procsOf(ran))
	})
}

// checkAtLeastFor fails unless every run's lock was taken at least
// atLeast after the lock of the run before it (At: when the acquisition
// was sent, by this machine's clock, which the processes share), less 50ms
// for the one-way trip of the later acquisition: what the lock guarantees,
// whatever the schedulers do.
func checkAtLeastFor(t *testing.T, runs []record, atLeast time.Duration) {
	t.Helper()
	slices.SortFunc(runs, func(a, b record) int { return cmp.Compare(a.At, b.At) })
	for i := 1; i < len(runs); i++ {
		if gap := time.Duration(runs[i].At - runs[i-1].At); gap < atLeast-50*time.Millisecond {
			t.Errorf("process %d took the job %v after process %d, within AtLeastFor %v", runs[i].proc, gap, runs[i-1].proc, atLeast)
		}
	}
}

// checkTick fails unless tick ran exactly once. A scheduler whose timers
// fired more than 200ms late (500ms AtLeastFor less the 300ms of clock
// offsets) ran its tick as if its clock were that far behind, which
// AtLeastFor does not cover: a tick run twice or not at all is excused
// when a run near it was that late, and only then.
func checkTick(t *testing.T, tick int64, runs []record) {
	t.Helper()
	if len(runs) == 1 {
		return
	}
	for _, r := range runs {
		if r.LateMs > 200 {
			t.Logf("tick %d ran %d times, excused: process %d's timers ran %d ms late", tick, len(runs), r.proc, r.LateMs)
			return
		}
	}
	t.Errorf("tick %d ran %d times (by processes %v), want once", tick, len(runs), procsOf(map[int64][]record{tick: runs})[tick])
}

// procsOf returns the processes that ran each tick.
func procsOf(ran map[int64][]record) map[int64][]int {
	m := make(map[int64][]int, len(ran))
	for tick, runs := range ran {
		for _, r := range runs {
			m[tick] = append(m[tick], r.proc)
		}
	}
	return m
}
