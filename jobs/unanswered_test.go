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
