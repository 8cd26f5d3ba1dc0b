package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
)

// TestReplication_promotion: what a standby's promotion does to the locks
// and tokens the primary acknowledged, when replication was cut off just
// before the primary died. The sessions' synchronous_commit is local (the
// server's setting): the executor's statements raise it to on.
//
//   - asynchronous: every acquisition acknowledged after the cut is gone on
//     the promoted standby, and its token sequence goes back: the first
//     token it draws is one the primary already handed out.
//   - synchronous (synchronous_standby_names = '*'): nothing is
//     acknowledged after the cut (each acquisition waits for the standby
//     until its context ends), every acknowledged one survives, and tokens
//     keep growing.
func TestReplication_promotion(t *testing.T) {
	for _, sync := range []bool{false, true} {
		t.Run(fmt.Sprint("synchronous=", sync), func(t *testing.T) {
			t.Parallel()
			promotion(t, sync)
		})
	}
}

// promotion runs a case of TestReplication_promotion.
func promotion(t *testing.T, sync bool) {
	primary, pool, proxy, standby := replicated(t, sync)
	e, err := postgres.New(pool, postgres.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() }) // its releases fail: the primary is gone
	var acked grants
	acquire := func(n int, prefix string, d time.Duration) {
		for i := range n {
			ctx, cancel := context.WithTimeout(t.Context(), d)
			r := req(fmt.Sprint(prefix, i), time.Hour)
			if l, err := e.Acquire(ctx, r); err == nil {
				acked.add(grant{r.Key, r.Owner, l.Token()})
			}
			cancel()
		}
	}
	acquire(40, "before:", 10*time.Second)
	replayed(t, pool, standby.Addr())
	proxy.SetBlackhole(true)
	before := acked.len()
	cut := 40 // asynchronous: past the 32 values a sequence logs ahead
	if sync {
		cut = 5 // each waits for its context to end
	}
	acquire(cut, "cut:", 200*time.Millisecond)
	if err := primary.Kill(); err != nil {
		t.Fatal(err)
	}
	spool := newPool(t, standby.Addr())
	if _, err := spool.Exec(t.Context(), "SELECT pg_promote()"); err != nil {
		t.Fatal(err)
	}
	all := acked.all()
	lost := lostGrants(t, spool, all)
	after, err := newExecutor(t, spool, postgres.Options{}).Acquire(t.Context(), req("after", time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	top := maxToken(all)
	t.Logf("%d acquisitions acknowledged before the cut, %d after it; %d lost in the promotion; first token after it %d, highest acknowledged %d",
		before, len(all)-before, len(lost), after.Token(), top)
	switch {
	case sync && (len(all) != before || len(lost) > 0 || after.Token() <= top):
		t.Error("synchronous replication: an acquisition was acknowledged without the standby, or lost, or a token went back")
	case !sync && (len(all) != before+cut || len(lost) != cut || after.Token() > top):
		t.Errorf("asynchronous replication: want the %d acquisitions acknowledged after the cut lost and the token sequence gone back, as docs/postgres.md says", cut)
	}
}

// replicated starts a primary whose sessions have synchronous_commit
// local, migrated, with a pool, and a standby that streams from it through
// a proxy, made synchronous when sync is set.
func replicated(t *testing.T, sync bool) (primary *testserver.Server, pool *pgxpool.Pool, proxy *testserver.Proxy, standby *testserver.Server) {
	t.Helper()
	primary, pool = ownServer(t, 8, nil, "-c", "synchronous_commit=local")
	proxy, err := testserver.NewProxy(primary.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	standby, err = testserver.StartPostgresStandby(proxy.Addr())
	testserver.Check(t, err)
	t.Cleanup(func() { _ = standby.Stop() })
	if sync {
		makeSynchronous(t, pool, standby)
	}
	return primary, pool, proxy, standby
}

// makeSynchronous makes standby, the standby of the server of pool,
// synchronous, and returns once commits wait for it. pg_stat_replication
// says "sync" as soon as the walsender read the new setting, but commits
// wait only once the checkpointer has read it too (it publishes whether
// synchronous standbys are defined): under make test-under-load five
// acquisitions acknowledged after that moment were not on the standby. So
// a commit is tried with the standby stopped (SIGSTOP: nothing is lost
// from its stream) until one waits.
func makeSynchronous(t *testing.T, pool *pgxpool.Pool, standby *testserver.Server) {
	t.Helper()
	for _, sql := range []string{"CREATE TABLE sync_probe (n int)", "ALTER SYSTEM SET synchronous_standby_names = '*'", "SELECT pg_reload_conf()"} {
		if _, err := pool.Exec(t.Context(), sql); err != nil {
			t.Fatal(err)
		}
	}
	testwait.For(t, 30*time.Second, "the standby synchronous", func() bool {
		var n int
		err := pool.QueryRow(t.Context(), "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'").Scan(&n)
		return err == nil && n == 1
	})
	tries, since := 0, time.Now()
	testwait.For(t, 30*time.Second, "a commit that waits for the standby", func() bool {
		tries++
		if err := standby.Pause(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := standby.Resume(); err != nil {
				t.Fatal(err)
			}
		}()
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		// A commit waits only for a transaction that wrote to the WAL.
		_, err := pool.Exec(ctx, "SET LOCAL synchronous_commit = on; INSERT INTO sync_probe VALUES (1)")
		return err != nil && ctx.Err() != nil
	})
	t.Logf("commits wait for the standby: %d commits tried, %v after pg_stat_replication said sync", tries, time.Since(since).Round(time.Millisecond))
}

// replayed waits until the standby at addr has replayed the WAL the
// server of pool has written so far.
func replayed(t *testing.T, pool *pgxpool.Pool, addr string) {
	t.Helper()
	var lsn string
	if err := pool.QueryRow(t.Context(), "SELECT pg_current_wal_lsn()::text").Scan(&lsn); err != nil {
		t.Fatal(err)
	}
	spool := newPool(t, addr)
	testwait.For(t, 30*time.Second, "the standby caught up", func() bool {
		var ok bool
		err := spool.QueryRow(t.Context(), "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn", lsn).Scan(&ok)
		return err == nil && ok
	})
}
