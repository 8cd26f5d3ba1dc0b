package postgres_test

import (
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executors/postgres"
)

// TestMVCC_oldSnapshot measures, when LOCK4GO_PG_MVCC=1, what a session
// holding an old snapshot does to a hot key: one goroutine locks and
// releases one key for 5 s, then for 10 s while another session keeps a
// REPEATABLE READ transaction open (LOCK4GO_PG_MVCC_HOLD seconds, 10 unless
// set), then for 20 s after it ended, and logs
// each second's acquisitions, p99 and the dead row versions of the locks
// table. LOCK4GO_PG_MVCC_AUTOVACUUM, when set, is applied to the lock
// tables first (ALTER TABLE ... SET (<it>)), to compare storage settings.
func TestMVCC_oldSnapshot(t *testing.T) {
	if os.Getenv("LOCK4GO_PG_MVCC") != "1" {
		t.Skip("a measurement for docs/postgres.md: LOCK4GO_PG_MVCC=1")
	}
	_, pool := ownServer(t, 4, nil)
	if av := os.Getenv("LOCK4GO_PG_MVCC_AUTOVACUUM"); av != "" {
		for _, table := range []string{"lock4go_locks", "lock4go_shares", "lock4go_waiters", "lock4go_voids"} {
			if _, err := pool.Exec(t.Context(), "ALTER TABLE "+table+" SET ("+av+")"); err != nil {
				t.Fatal(err)
			}
		}
	}
	e := newExecutor(t, pool, postgres.Options{})
	second := func(phase string) { hotSecond(t, e, pool, phase) }
	for range 5 {
		second("before")
	}
	snap, err := pool.BeginTx(t.Context(), pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := snap.Exec(t.Context(), "SELECT count(*) FROM pg_class"); err != nil { // takes the snapshot
		t.Fatal(err)
	}
	hold := 10
	if v, err := strconv.Atoi(os.Getenv("LOCK4GO_PG_MVCC_HOLD")); err == nil {
		hold = v
	}
	for range hold {
		second("old snapshot held")
	}
	if err := snap.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		second("after")
	}
}

// hotSecond locks and releases one key through e for a second and logs
// how many times, the p50 and p99, and the dead versions of the locks
// table.
func hotSecond(t *testing.T, e *postgres.Executor, pool *pgxpool.Pool, phase string) {
	t.Helper()
	var lat []time.Duration
	end := time.Now().Add(time.Second)
	for time.Now().Before(end) {
		start := time.Now()
		l, err := e.Acquire(t.Context(), req("hot", time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	dead, vacuums := deadTuples(t, pool)
	t.Logf("%s: %d pairs/s, p50 %v, p99 %v, dead versions %d, autovacuums %d", phase, len(lat), lat[len(lat)/2], lat[len(lat)*99/100], dead, vacuums)
}

// deadTuples returns the dead row versions of lock4go_locks the statistics
// count, and how many times autovacuum processed it.
func deadTuples(t *testing.T, pool *pgxpool.Pool) (dead, vacuums int64) {
	t.Helper()
	err := pool.QueryRow(t.Context(), "SELECT n_dead_tup, autovacuum_count FROM pg_stat_user_tables WHERE relname = 'lock4go_locks'").Scan(&dead, &vacuums)
	if err != nil {
		t.Fatal(err)
	}
	return dead, vacuums
}
