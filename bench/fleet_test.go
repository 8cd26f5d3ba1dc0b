package bench

import (
	"encoding/xml"
	"strings"
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

// TestFleetSVG checks that the fleet plot is well-formed SVG with a line
// per Redis subject and leaves other backends and the many-keys cells out.
func TestFleetSVG(t *testing.T) {
	var cells []FleetCell
	for _, s := range []string{"lock4go/redis", "Lock4j-style poll"} {
		for i, p := range []int{1, 4, 16, 64} {
			cells = append(cells, FleetCell{Subject: s, Backend: Redis, Procs: p, Keys: 1, CPUMicros: float64(50 + 10*i), ServerCmds: float64(5 + i)})
		}
	}
	cells = append(cells,
		FleetCell{Subject: "lock4go/etcd", Backend: Etcd, Procs: 4, Keys: 1, CPUMicros: 900},
		FleetCell{Subject: "lock4go/redis", Backend: Redis, Procs: 16, Keys: 10_000, CPUMicros: 30})
	svg := FleetSVG(cells)
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("not well-formed: %v", err)
	}
	if n := strings.Count(svg, "<polyline"); n != 4 {
		t.Fatalf("%d lines, want 4 (2 subjects × 2 panels)", n)
	}
	if strings.Contains(svg, "lock4go/etcd") {
		t.Fatal("an etcd subject in the Redis plot")
	}
}
