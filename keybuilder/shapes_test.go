package keybuilder_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/keybuilder"
)

// TestKeyShapes_cost holds key building to the cost of the standard
// library's own look at the body, for every hostile shape up to the body
// cap: at most 3x json.Valid for JSON (url.ParseQuery or
// ParseMultipartForm for forms). The extraction it replaced cost 27-62x on
// such bodies. Costs are the thread's CPU time, the least of a few rounds,
// so that other processes on a busy machine do not count; the race
// detector's own slowdown differs between the two loops, so it is allowed
// 6x.
func TestKeyShapes_cost(t *testing.T) {
	limit, rounds, round := 3.0, 5, 10*time.Millisecond
	if raceEnabled {
		limit, rounds, round = 6, 2, 0
	}
	for _, s := range append(jsonShapes(), formShapes()...) {
		kb, err := keybuilder.NewHTTP("lock4go", "pay", []string{s.expr}, keybuilder.WithMaxPartLen(bodyCap))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := kb.Key(shapeRequest(s)); (err != nil) != s.wantErr || err != nil && !errors.Is(err, executor.ErrInvalidKey) {
			t.Fatalf("%s: Key = %v, want an error: %v", s.name, err, s.wantErr)
		}
		base := cpuPerOp(func() { _ = baseline(s) }, rounds, round)
		key := cpuPerOp(func() { _, _ = kb.Key(shapeRequest(s)) }, rounds, round)
		ratio := float64(key) / float64(max(base, 1))
		t.Logf("%-22s %7d bytes: baseline %8v, key %8v: %.2fx", s.name, len(s.body), base, key, ratio)
		if ratio > limit {
			t.Errorf("%s: key building costs %.1fx the baseline (%v vs %v), want at most %vx", s.name, ratio, key, base, limit)
		}
	}
}
