package jobs_test

import (
	"testing"
	"time"
)

// TestUnanswered checks the excuse of a tick nobody ran on the records of a
// run under make test-under-load: PostgreSQL answered none of the four
// processes' attempts for one tick within 2s, and the ticks they were
// still waiting through did not fire. Ticks whose attempts were answered
// "taken" are not excused.
func TestUnanswered(t *testing.T) {
	const base = 1795981560
	offsets := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}
	at := func(s int64, ms int64) int64 { return time.Unix(base+s, ms*1e6).UnixNano() }
	others := []record{
		{proc: 0, Ev: "unlock", Fired: at(2, 0), Start: at(2, 65), End: at(2, 975)},
		{proc: 1, Ev: "nolock", Fired: at(2, 101), End: at(2, 978)},
		{proc: 2, Ev: "nolock", Fired: at(2, 200), End: at(2, 492)},
		{proc: 3, Ev: "nolock", Fired: at(2, 300), End: at(2, 524)},
		{proc: 0, Ev: "nolock", Backend: true, Fired: at(3, 0), End: at(5, 1)},
		{proc: 1, Ev: "nolock", Backend: true, Fired: at(3, 100), End: at(5, 101)},
		{proc: 2, Ev: "nolock", Backend: true, Fired: at(3, 201), End: at(5, 201)},
		{proc: 3, Ev: "nolock", Backend: true, Fired: at(3, 300), End: at(5, 301)},
	}
	for tick, want := range map[int64]bool{base + 2: false, base + 3: true, base + 4: true, base + 5: true, base + 6: false} {
		why, got := unanswered(tick, offsets, others)
		if got != want {
			t.Errorf("tick +%d: unanswered = %v (%s), want %v", tick-base, got, why, want)
		}
	}
	// One process answered: the tick is not excused.
	others[7].Backend = false
	if why, ok := unanswered(base+3, offsets, others); ok {
		t.Errorf("a tick one process was told was taken is excused: %s", why)
	}
}

// TestNearRuns checks, on the records of a run under make
// test-under-load, that a run of an earlier tick whose lock came late
// enough to keep the job through a later tick is among that tick's near
// runs: process 3 fired its first tick (+1) at +1.300 and got the lock at
// +2.572, after process 0 had run tick +2, and every process was refused
// at +3.
func TestNearRuns(t *testing.T) {
	const base = 1795995770
	at := func(s int64, ms int64) int64 { return time.Unix(base+s, ms*1e6).UnixNano() }
	late := record{proc: 3, Ev: "run", Tick: base + 1, Token: 57, Fired: at(1, 300), At: at(2, 572)}
	ran := map[int64][]record{
		base + 1: {{proc: 0, Ev: "run", Tick: base + 1, Token: 55, At: at(1, 2)}, late},
		base + 2: {{proc: 0, Ev: "run", Tick: base + 2, Token: 56, At: at(2, 1)}},
		base + 4: {{proc: 0, Ev: "run", Tick: base + 4, Token: 58, At: at(4, 1)}},
	}
	var runs []record
	for _, rs := range ran {
		runs = append(runs, rs...)
	}
	has := func(near []record, token int64) bool {
		for _, r := range near {
			if r.Token == token {
				return true
			}
		}
		return false
	}
	if near := nearRuns(ran, runs, base+3); !has(near, 57) {
		t.Errorf("tick +3's near runs %v leave out the late run of tick +1", near)
	}
	// Two seconds later its AtLeastFor is long over: not near tick +5.
	if near := nearRuns(ran, runs, base+5); has(near, 57) {
		t.Errorf("tick +5's near runs %v include a run whose lock came 2.4s before it", near)
	}
}
