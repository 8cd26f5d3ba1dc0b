package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// alternatePairs makes Lock+Release pairs of floor (on fkey) and of mine
// (on key) in turn, floor first, each timed apart, until b.Ops pairs of
// each or b.Time spent: the method of BenchmarkUncontended, so that both
// see the same load.
func alternatePairs(ctx context.Context, floor, mine Locker, fkey, key string, b Budget) (mineLat, floorLat []time.Duration, err error) {
	var spent time.Duration
	for len(mineLat) < b.Ops && spent < b.Time {
		t0 := time.Now()
		if err := pair(ctx, floor, fkey); err != nil {
			return nil, nil, err
		}
		t1 := time.Now()
		if err := pair(ctx, mine, key); err != nil {
			return nil, nil, err
		}
		t2 := time.Now()
		floorLat, mineLat = append(floorLat, t1.Sub(t0)), append(mineLat, t2.Sub(t1))
		spent += t2.Sub(t0)
	}
	return mineLat, floorLat, nil
}

// XFloor measures BenchmarkUncontended's x-floor of lock4go on each backend
// of cat: the p50 of its uncontended pairs over the p50 of the raw floor's,
// the pairs alternated one by one. Each backend gets batches batches of b;
// the figure is their median.
func XFloor(ctx context.Context, cat *Catalog, batches int, b Budget) (map[Backend]float64, error) {
	out := map[Backend]float64{}
	for _, backend := range []Backend{Redis, Etcd, ZooKeeper} {
		floor, mine := cat.ByName("raw "+string(backend)), cat.ByName("lock4go/"+string(backend))
		if floor == nil || mine == nil {
			continue
		}
		fl, err := floor.Contender(0)
		if err != nil {
			return nil, err
		}
		l, err := mine.Contender(0)
		if err != nil {
			return nil, err
		}
		fkey, key := benchKey(floor, "guard"), benchKey(mine, "guard")
		if _, _, err := alternatePairs(ctx, fl, l, fkey, key, Budget{Ops: 20, Time: time.Second}); err != nil {
			return nil, fmt.Errorf("%s: warm-up: %w", mine.Name, err)
		}
		ratios := make([]float64, 0, batches)
		for range batches {
			m, f, err := alternatePairs(ctx, fl, l, fkey, key, b)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", mine.Name, err)
			}
			ratios = append(ratios, float64(distOf(m).P50)/float64(distOf(f).P50))
		}
		slices.Sort(ratios)
		out[backend] = ratios[len(ratios)/2]
	}
	return out, nil
}

// Baseline is the committed reference of the latency guard
// (docs/bench-baseline.json): lock4go's uncontended x-floor on each
// backend, and the rise the guard lets pass as noise.
type Baseline struct {
	// Note says where and how the figures were measured.
	Note string `json:"note"`
	// NoiseBand is, by backend, the relative rise of an x-floor taken as
	// noise: 0.15 lets 1.00 rise to 1.15 without a warning. A backend
	// without one gets [DefaultNoiseBand].
	NoiseBand map[Backend]float64 `json:"noise_band"`
	// XFloor is lock4go's x-floor by backend.
	XFloor map[Backend]float64 `json:"x_floor"`
}

// DefaultNoiseBand is the noise band of a backend the baseline gives none.
const DefaultNoiseBand = 0.15

// band returns backend's noise band.
func (b Baseline) band(backend Backend) float64 {
	if n, ok := b.NoiseBand[backend]; ok {
		return n
	}
	return DefaultNoiseBand
}

// ReadBaseline reads a baseline file.
func ReadBaseline(path string) (Baseline, error) {
	var b Baseline
	data, err := os.ReadFile(path)
	if err != nil {
		return b, err
	}
	if err := json.Unmarshal(data, &b); err != nil {
		return b, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// Write writes b to path, indented.
func (b Baseline) Write(path string) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// Regressions returns a line for each backend whose x-floor in got rose
// above its baseline by more than the noise band.
func (b Baseline) Regressions(got map[Backend]float64) []string {
	var out []string
	for _, backend := range []Backend{Redis, Etcd, ZooKeeper} {
		base, ok1 := b.XFloor[backend]
		now, ok2 := got[backend]
		if ok1 && ok2 && now > base*(1+b.band(backend)) {
			out = append(out, fmt.Sprintf("lock4go-%s uncontended x-floor %.2f, baseline %.2f: +%.0f%%, beyond the %.0f%% noise band",
				backend, now, base, 100*(now/base-1), 100*b.band(backend)))
		}
	}
	return out
}

// GuardMarkdown renders the guard's figures against the baseline.
func GuardMarkdown(b Baseline, got map[Backend]float64, command string) string {
	var s strings.Builder
	fmt.Fprintf(&s, "## Latency guard\n\n`BenchmarkUncontended/lock4go-<backend>`'s x-floor (p50 of lock4go's uncontended Lock+Release over the raw floor's, pairs alternated; median of batches), measured by `%s` and compared with docs/bench-baseline.json (%s). A rise beyond the noise band prints a warning; `-guard-fail` makes it fail the run. Run alone: `cd bench && go run ./cmd/lockbench -cells guard` (add `-guard-fail` to fail on a regression; `-write-baseline` records the figures as the new baseline, on a quiet machine only). The noise band of each backend is the spread of three guard runs on the machine that wrote it.\n\n",
		command, b.Note)
	s.WriteString("| backend | x-floor | baseline | change | noise band |\n|---|--:|--:|--:|--:|\n")
	for _, backend := range []Backend{Redis, Etcd, ZooKeeper} {
		now, ok := got[backend]
		if !ok {
			continue
		}
		base := b.XFloor[backend]
		change := "—"
		if base > 0 {
			change = fmt.Sprintf("%+.0f%%", 100*(now/base-1))
		}
		fmt.Fprintf(&s, "| %s | %.2f | %.2f | %s | %.0f%% |\n", backend, now, base, change, 100*b.band(backend))
	}
	s.WriteString("\n")
	return s.String()
}
