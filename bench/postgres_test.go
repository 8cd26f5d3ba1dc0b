package bench

import (
	"os"
	"testing"
	"time"
)

// TestPostgres_claims checks the PostgreSQL claims of docs/bench.md, all
// measured in one run against one server: lock4go's uncontended p50 within
// 1.15× the raw floor (its own two statements by hand) and below pglock's
// protocol, and a hand-off p99 within 5ms with 64 waiters, both in one
// process (one Template) and in 64 (a Template each, with its own pool and
// LISTEN connection).
func TestPostgres_claims(t *testing.T) {
	env, cat := catalog(t)
	if os.Getenv(claimEnv) != "1" {
		t.Skipf("timing claims are checked only with %s=1", claimEnv)
	}
	names := []string{"raw postgres", "lock4go/postgres", "pg_advisory_lock", "pglock protocol"}
	subjects := make([]*Subject, len(names))
	for i, n := range names {
		if subjects[i] = cat.ByName(n); subjects[i] == nil {
			t.Fatalf("no subject %q", n)
		}
	}
	res, err := UncontendedAll(t.Context(), subjects, func(s *Subject) string { return benchKey(s, "claim") },
		func(s *Subject) Counter { return env.Counter(s.Backend) }, Budget{Ops: 2000, Time: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		srv, _, _ := r.CommandsPerPair()
		t.Logf("%-18s p50 %-9v p99 %-9v %.2f× floor, %.1f statements per pair", names[i], r.Pair.P50, r.Pair.P99, float64(r.Pair.P50)/float64(res[0].Pair.P50), srv)
	}
	if got := float64(res[1].Pair.P50) / float64(res[0].Pair.P50); got > uncontendedClaims[Postgres] {
		t.Errorf("lock4go/postgres uncontended p50 is %.2f× the raw floor, above the claimed %.2f×", got, uncontendedClaims[Postgres])
	}
	if res[1].Pair.P50 >= res[3].Pair.P50 {
		t.Errorf("lock4go/postgres uncontended p50 %v, not below pglock's protocol %v", res[1].Pair.P50, res[3].Pair.P50)
	}
	for _, templates := range []int{1, 64} {
		s, err := Lock4go(t.Context(), Postgres, templates, postgresExecutor(env, 2))
		if err != nil {
			t.Fatal(err)
		}
		h, err := Handoff(t.Context(), s, benchKey(s, "claim-handoff"), HandoffOptions{
			Waiters: 64, Hold: 5 * time.Millisecond, AcquireTimeout: 3 * time.Second, Budget: Budget{Ops: 300, Time: 3 * time.Second},
		})
		_ = s.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: hand-off with 64 waiters p50 %v p99 %v (%d samples, %d timeouts)", s.Name, h.Handoff.P50, h.Handoff.P99, h.Handoff.N, h.Timeouts)
		if h.Handoff.P99 > 5*time.Millisecond {
			t.Errorf("%s: hand-off p99 %v with 64 waiters, above the claimed 5ms", s.Name, h.Handoff.P99)
		}
	}
}
