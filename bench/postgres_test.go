package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lock4go/lock4go/internal/testserver"
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

// TestPostgres_notifyCost measures what a NOTIFY costs PostgreSQL by the
// number of connections that LISTEN in the database (on other channels):
// the server signals every listening backend at each NOTIFY, and each
// reads the shared queue. No lock4go code runs: the cost is the
// database's, and a hand-off pays it once.
func TestPostgres_notifyCost(t *testing.T) {
	env, _ := catalog(t)
	if os.Getenv(claimEnv) != "1" {
		t.Skipf("measured only with %s=1", claimEnv)
	}
	ctx := t.Context()
	pm, err := postmasterPID(ctx, env.PostgresAddr)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 16, 64} {
		perNotify, cpu, err := notifyCost(ctx, env.PostgresAddr, pm, n, 2000)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%2d idle listeners: %v per pg_notify round trip, %v server CPU per notify", n, perNotify, cpu)
	}
}

// notifyCost runs rounds pg_notify statements on a channel nobody listens
// on while n other connections LISTEN, and returns the round trip and the
// server's CPU per notify.
func notifyCost(ctx context.Context, addr string, postmaster, n, rounds int) (time.Duration, time.Duration, error) {
	for i := range n {
		c, err := pgconn.Connect(ctx, testserver.PostgresDSN(addr))
		if err != nil {
			return 0, 0, err
		}
		defer c.Close(context.WithoutCancel(ctx))
		if _, err := c.Exec(ctx, fmt.Sprintf("LISTEN idle_%d", i)).ReadAll(); err != nil {
			return 0, 0, err
		}
	}
	c, err := pgx.Connect(ctx, testserver.PostgresDSN(addr))
	if err != nil {
		return 0, 0, err
	}
	defer c.Close(context.WithoutCancel(ctx))
	cpu0, err := treeCPU(postmaster)
	if err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	for range rounds {
		if _, err := c.Exec(ctx, "SELECT pg_notify('nobody', 'x')"); err != nil {
			return 0, 0, err
		}
	}
	elapsed := time.Since(t0)
	cpu1, err := treeCPU(postmaster)
	if err != nil {
		return 0, 0, err
	}
	return elapsed / time.Duration(rounds), (cpu1 - cpu0) / time.Duration(rounds), nil
}
