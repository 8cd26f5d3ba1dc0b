package bench

import (
	"os"
	"testing"
	"time"
)

// BenchmarkUncontended measures Lock + Unlock pairs for every subject. For
// lock4go and the peers each op is two pairs, one of the raw floor of the
// same backend and one of the subject, timed apart, so that both see the
// same load; besides ns/op (both pairs) they report the p50 of each and
// x-floor, the ratio of the p50s: the figure docs/bench.md claims; and
// x-floor-mean, the ratio of the means. Batches of 2000 pairs, five times:
//
//	go test -run '^$' -bench 'Uncontended/lock4go' -benchtime 2000x -count 5 ./bench/...
func BenchmarkUncontended(b *testing.B) {
	_, cat := catalog(b)
	floors := map[Backend]*Subject{}
	for _, s := range cat.Subjects {
		if s.Kind == KindRaw && floors[s.Backend] == nil { // the first: the bare protocol
			floors[s.Backend] = s
		}
	}
	for _, s := range cat.Subjects {
		b.Run(slug(s.Name), func(b *testing.B) {
			l := warmLocker(b, s)
			key := benchKey(s, "gobench")
			f := floors[s.Backend]
			if s.Kind == KindRaw || f == nil {
				for b.Loop() {
					if err := pair(b.Context(), l, key); err != nil {
						b.Fatal(err)
					}
				}
				return
			}
			fl, fkey := warmLocker(b, f), benchKey(f, "gobench")
			var mine, floor []time.Duration
			for b.Loop() {
				m, f, err := alternatePairs(b.Context(), fl, l, fkey, key, Budget{Ops: 1, Time: time.Hour})
				if err != nil {
					b.Fatal(err)
				}
				floor, mine = append(floor, f...), append(mine, m...)
			}
			m, fd := distOf(mine), distOf(floor)
			b.ReportMetric(float64(m.P50.Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(fd.P50.Nanoseconds()), "floor-p50-ns")
			b.ReportMetric(float64(m.P50)/float64(fd.P50), "x-floor")
			b.ReportMetric(float64(sum(mine))/float64(sum(floor)), "x-floor-mean")
		})
	}
}

// warmLocker returns s's first Locker after 20 pairs.
func warmLocker(b *testing.B, s *Subject) Locker {
	b.Helper()
	l, err := s.Contender(0)
	if err != nil {
		b.Fatal(err)
	}
	for range 20 {
		if err := pair(b.Context(), l, benchKey(s, "gobench")); err != nil {
			b.Fatal(err)
		}
	}
	return l
}

// TestUncontended_claims checks the ratio claims of docs/bench.md: lock4go's
// uncontended p50 against the raw floor of each backend, measured
// interleaved in one run.
func TestUncontended_claims(t *testing.T) {
	env, cat := catalog(t)
	if os.Getenv(claimEnv) != "1" {
		t.Skipf("timing claims are checked only with %s=1", claimEnv)
	}
	for _, tc := range []struct {
		backend     Backend
		floor, mine string
		maxRatio    float64
	}{
		{Redis, "raw redis", "lock4go/redis", uncontendedClaims[Redis]},
		{Etcd, "raw etcd", "lock4go/etcd", uncontendedClaims[Etcd]},
		{ZooKeeper, "raw zookeeper", "lock4go/zookeeper", uncontendedClaims[ZooKeeper]},
		{Postgres, "raw postgres", "lock4go/postgres", uncontendedClaims[Postgres]},
		{MySQL, "raw mysql", "lock4go/mysql", uncontendedClaims[MySQL]},
	} {
		t.Run(string(tc.backend), func(t *testing.T) {
			subjects := []*Subject{cat.ByName(tc.floor), cat.ByName(tc.mine)}
			res, err := UncontendedAll(t.Context(), subjects, func(s *Subject) string { return benchKey(s, "claim") },
				func(s *Subject) Counter { return env.Counter(s.Backend) }, Budget{Ops: 2000, Time: 3 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			got := float64(res[1].Pair.P50) / float64(res[0].Pair.P50)
			t.Logf("%s p50 %v, %s p50 %v: %.2f× (claim ≤ %.2f×)", tc.mine, res[1].Pair.P50, tc.floor, res[0].Pair.P50, got, tc.maxRatio)
			if got > tc.maxRatio {
				t.Errorf("%s uncontended p50 is %.2f× the raw floor, above the claimed %.2f×", tc.mine, got, tc.maxRatio)
			}
		})
	}
}
