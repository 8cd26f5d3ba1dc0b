package jobs_test

import (
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
		ran := map[int64][]int{}
		for _, in := range ins {
			for _, r := range in.records() {
				if r.Ev == "run" {
					ran[r.Tick] = append(ran[r.Tick], r.proc)
				}
			}
		}
		ticks := make([]int64, 0, len(ran))
		for k := range ran {
			ticks = append(ticks, k)
		}
		slices.Sort(ticks)
		if len(ticks) < 3 {
			t.Fatalf("only %d ticks ran: %v", len(ticks), ran)
		}
		// The first and last ticks may be cut by the start and the stop.
		for tick := ticks[0] + 1; tick < ticks[len(ticks)-1]; tick++ {
			if got := ran[tick]; len(got) != 1 {
				t.Errorf("tick %d ran %d times (by processes %v), want once", tick, len(got), got)
			}
		}
		t.Logf("%d ticks, each once; runs by process: %v", len(ticks), ran)
	})
}
