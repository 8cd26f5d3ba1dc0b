package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBench runs a short bench against each backend, in text and JSON.
func TestBench(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backendCase) {
		small := []string{"bench", "--pairs", "20", "--samples", "5", "--waiters", "2", "--max-time", "20s"}
		r := runCLI(t, "", nil, args(small, b.flags)...)
		wantCode(t, r, exitOK)
		for _, want := range []string{"lock4go/" + b.kind, "uncontended acquire + release: p50 ", "(20 pairs)", "hand-off, 2 waiters:", "(5 hand-offs"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("stdout lacks %q", want)
			}
		}
		r = runCLI(t, "", nil, args(small, b.flags, []string{"--json", "--waiters", "1,3"})...)
		wantCode(t, r, exitOK)
		var rep benchReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatal(err)
		}
		u := rep.Uncontended
		if u.N != 20 || u.P50 <= 0 || u.P99 < u.P50 || rep.PairsPerSec <= 0 || len(rep.Handoff) != 2 {
			t.Fatalf("report %+v", rep)
		}
		for i, w := range []int{1, 3} {
			h := rep.Handoff[i]
			if h.Waiters != w || h.N != 5 || h.P50 <= 0 || h.P99 < h.P50 {
				t.Errorf("hand-off %d: %+v, want %d waiters and 5 samples", i, h, w)
			}
		}
	})
}
