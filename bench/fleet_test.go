package bench

import (
	"testing"
	"time"
)

// TestFleet_twoProcesses runs one fleet cell, lock4go on Redis with two
// worker processes, and checks that both processes acquired, that no two
// holders overlapped and that the server's counters moved. It asserts
// behaviour, not speed.
func TestFleet_twoProcesses(t *testing.T) {
	env, _ := catalog(t)
	cells, err := Fleet(t.Context(), env, FleetOptions{
		Procs: []int{2}, Goroutines: 4, Duration: 500 * time.Millisecond,
		Backends: []Backend{Redis}, Subjects: []string{"lock4go/redis"},
	}, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 1 {
		t.Fatalf("%d cells, want 1", len(cells))
	}
	c := cells[0]
	if c.Acquired == 0 || c.Starved != 0 || c.MinPerG == 0 {
		t.Fatalf("cell %+v: a goroutine never acquired", c)
	}
	if c.Violations != 0 {
		t.Fatalf("%d overlapping holders across the two processes", c.Violations)
	}
	if c.Errors != 0 {
		t.Fatalf("%d errors, first %q", c.Errors, c.FirstErr)
	}
	if c.ServerCmds <= 0 || c.Sent <= 0 || c.Handoff.N == 0 {
		t.Fatalf("cell %+v: counters did not move", c)
	}
}
