package bench

import (
	"path/filepath"
	"strings"
	"testing"
)

// A backend's x-floor above its baseline by more than its noise band is a
// regression; within the band, or lower, it is not.
func TestBaseline_Regressions(t *testing.T) {
	b := Baseline{
		NoiseBand: map[Backend]float64{Redis: 0.10},
		XFloor:    map[Backend]float64{Redis: 1.00, Etcd: 1.00, ZooKeeper: 2.00},
	}
	got := b.Regressions(map[Backend]float64{Redis: 1.35, Etcd: 1.10, ZooKeeper: 1.50})
	if len(got) != 1 || !strings.Contains(got[0], "lock4go-redis") || !strings.Contains(got[0], "+35%") {
		t.Errorf("Regressions = %q; want one line for redis, +35%%", got)
	}
	if got := b.Regressions(map[Backend]float64{Redis: 1.09, Etcd: 1.16}); len(got) != 1 || !strings.Contains(got[0], "etcd") {
		t.Errorf("Regressions = %q; want etcd only (default band %.0f%%)", got, 100*DefaultNoiseBand)
	}
}

// The committed baseline parses and names every backend.
func TestBaseline_committed(t *testing.T) {
	b, err := ReadBaseline(filepath.Join("..", "docs", "bench-baseline.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, backend := range []Backend{Redis, Etcd, ZooKeeper} {
		if b.XFloor[backend] <= 0 {
			t.Errorf("baseline has no x-floor for %s", backend)
		}
	}
}
