package bench

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestRun_quick runs every measure on every subject with a tiny plan and
// checks that nothing failed, mutual exclusion held, and the report renders.
func TestRun_quick(t *testing.T) {
	env, cat := catalog(t)
	if testing.Short() {
		t.Skip("runs every subject for about 20s")
	}
	plan := Plan{
		Uncontended:    Budget{Ops: 50, Time: 200 * time.Millisecond},
		Contenders:     []int{16},
		ContendedFor:   200 * time.Millisecond,
		Waiters:        []int{2},
		Handoff:        Budget{Ops: 10, Time: 500 * time.Millisecond},
		Hold:           5 * time.Millisecond,
		AcquireTimeout: 3 * time.Second,
	}
	rows := Run(t.Context(), env, cat, plan, io.Discard)
	for _, r := range rows {
		for _, err := range r.Errs {
			t.Errorf("%s: %v", r.Subject.Name, err)
		}
		if r.Uncontended.Pair.N == 0 {
			t.Errorf("%s: no uncontended figure", r.Subject.Name)
		}
		if !r.Subject.Waits {
			continue
		}
		if c := r.Contended[16]; c.Acquired == 0 || c.Violations != 0 {
			t.Errorf("%s: contended run: %d acquisitions, %d violations", r.Subject.Name, c.Acquired, c.Violations)
		}
		if h := r.Handoff[2]; h.Handoff.N == 0 {
			t.Errorf("%s: no hand-off samples", r.Subject.Name)
		}
	}
	rep := Report{Rows: rows, Plan: plan, Command: "test"}
	md := rep.Markdown()
	if !strings.Contains(md, "| **lock4go/redis** |") {
		t.Errorf("Markdown has no lock4go/redis row:\n%s", md)
	}
	if !strings.Contains(md, "### Redis: the fencing token's share") || !strings.Contains(md, "| raw redis, fenced |") {
		t.Errorf("Markdown has no fenced floor:\n%s", md)
	}
	if svg := rep.SVG(); !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "lock4go/etcd") {
		t.Errorf("SVG is incomplete:\n%s", svg)
	}
}

// TestCostReport_hotKeyByCmd: the hot-key cells' commands by name, most
// frequent first, without the rare ones (session pings), then the time
// inside them.
func TestCostReport_hotKeyByCmd(t *testing.T) {
	r := CostReport{Fleet: []FleetCell{
		{Subject: "lock4go/redis", Procs: 64, Keys: 1, ByCmd: map[string]float64{"time": 1.2, "evalsha": 3.1, "get": 1.2, "ping": 0.01, "usec:evalsha": 90.8, "usec:get": 2.76, "usec:ping": 0.1}},
		{Subject: "lock4go/redis", Procs: 16, Keys: 10000, ByCmd: map[string]float64{"set": 1}},
	}}
	got := r.hotKeyByCmd()
	want := []string{"lock4go/redis, P = 64: evalsha 3.10, get 1.20, time 1.20; µs inside: evalsha 90.8, get 2.8"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("hotKeyByCmd = %q, want %q", got, want)
	}
}
