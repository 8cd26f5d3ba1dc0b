package bench

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkHandoff measures hand-off latency (a release begun to the next
// holder's Lock returned, in one process) with 64 waiters, for lock4go with
// one Template against its backend's waiting peer, as make bench's
// hand-off cell does (300 samples or 3 s per run, 5 ms holds). Each op is
// one run of each subject, alternated so that both see the same load; it
// reports the median over the runs of each one's p50 and p99, and
// p99-ratio, the median of lock4go's p99 over the peer's in the same op.
// Both subjects first make 2000 uncontended pairs each, so that a fresh
// server's JIT is warm.
//
//	go test -run '^$' -bench 'Handoff/zookeeper' -benchtime 3x .
func BenchmarkHandoff(b *testing.B) {
	_, cat := catalog(b)
	for _, c := range []struct {
		backend    Backend
		mine, peer string
	}{
		{ZooKeeper, "lock4go/zookeeper", "go-zookeeper zk.Lock"},
		{Redis, "lock4go/redis", "rueidislock"},
	} {
		b.Run(string(c.backend), func(b *testing.B) {
			subjects := []*Subject{cat.ByName(c.mine), cat.ByName(c.peer)}
			var p50s, p99s [2][]time.Duration
			var ratios []float64
			o := HandoffOptions{Waiters: 64, Hold: 5 * time.Millisecond, AcquireTimeout: 3 * time.Second,
				Budget: Budget{Ops: 300, Time: 3 * time.Second}}
			warmUp(b, subjects)
			run := 0
			for b.Loop() {
				for i, s := range subjects {
					if s == nil {
						b.Skipf("no subject %q", []string{c.mine, c.peer}[i])
					}
					r, err := Handoff(b.Context(), s, benchKey(s, fmt.Sprintf("handoff64-%d", run)), o)
					if err != nil {
						b.Fatal(err)
					}
					p50s[i] = append(p50s[i], r.Handoff.P50)
					p99s[i] = append(p99s[i], r.Handoff.P99)
					b.Logf("run %d %s: p50 %v p99 %v (%d samples, %d misses)", run, s.Name, r.Handoff.P50, r.Handoff.P99, r.Handoff.N, r.Misses)
				}
				ratios = append(ratios, float64(p99s[0][run])/float64(p99s[1][run]))
				run++
			}
			b.ReportMetric(float64(median(p50s[0]).Microseconds()), "p50-µs")
			b.ReportMetric(float64(median(p99s[0]).Microseconds()), "p99-µs")
			b.ReportMetric(float64(median(p50s[1]).Microseconds()), "peer-p50-µs")
			b.ReportMetric(float64(median(p99s[1]).Microseconds()), "peer-p99-µs")
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "p99-ratio")
		})
	}
}

// median returns the median of d; it sorts d in place.
func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// warmUp makes 2000 uncontended pairs with each subject: a fresh server's
// JIT (ZooKeeper's JVM) is cold.
func warmUp(b *testing.B, subjects []*Subject) {
	for _, s := range subjects {
		if s == nil {
			continue
		}
		l, err := s.Contender(0)
		if err != nil {
			b.Fatal(err)
		}
		for range 2000 {
			if err := pair(b.Context(), l, benchKey(s, "handoff-warm")); err != nil {
				b.Fatal(err)
			}
		}
	}
}
