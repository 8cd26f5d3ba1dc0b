package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
)

// grant is an acquisition the executor acknowledged.
type grant struct {
	key, owner string
	token      int64
}

// ownServer starts a PostgreSQL server of the test's own with extra
// environment and settings (fault tests that restart it must not disturb
// the package's server), migrated with the default Options, and returns it
// with a pool of maxConns connections.
func ownServer(t *testing.T, maxConns int32, env []string, args ...string) (*testserver.Server, *pgxpool.Pool) {
	t.Helper()
	s, err := testserver.StartPostgresEnv(env, args...)
	testserver.Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	cfg, err := pgxpool.ParseConfig(testserver.PostgresDSN(s.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = maxConns
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := postgres.Migrate(t.Context(), pool, postgres.Options{}); err != nil {
		t.Fatal(err)
	}
	return s, pool
}

// TestDurable_synchronousCommitOff: with synchronous_commit off for the
// whole server (a busy database's common choice), a backend killed under
// load (the postmaster then ends every backend and recovers from the WAL)
// loses no acquisition the executor acknowledged, and the first token drawn
// after the recovery is above every token acknowledged before it. Without
// the statements' own synchronous commit, the commits of the last moments
// before the crash were in no file yet: their rows were gone, and the
// token sequence went back.
func TestDurable_synchronousCommitOff(t *testing.T) {
	t.Parallel() // on a server of its own
	const workers = 8
	s, pool := ownServer(t, workers+2, nil, "-c", "synchronous_commit=off")
	e, err := postgres.New(pool, postgres.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The test's thousands of leases are its own to drop: Close would
		// release them one by one.
		_, _ = pool.Exec(context.Background(), "TRUNCATE lock4go_locks")
		_ = e.Close()
	})
	witness, victim := connect(t, s.Addr()), connect(t, s.Addr())
	ctx, stop := context.WithCancel(t.Context())
	acked, wg := load(ctx, e, workers)
	start := time.Now()
	if !testwait.Until(20*time.Second, func() bool { return acked.len() >= 3000 }) {
		t.Fatal("fewer than 3000 acquisitions in 20 s")
	}
	t.Logf("%d acquisitions in %v before the kill", acked.len(), time.Since(start))
	if err := syscall.Kill(backendPID(t, victim), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	awaitRecovery(t, witness, s.Addr())
	stop()
	wg.Wait()
	all := acked.all()
	if lost := lostGrants(t, pool, all); len(lost) > 0 {
		t.Errorf("%d of %d acknowledged acquisitions lost in the crash, e.g. %+v", len(lost), len(all), lost[0])
	}
	after, err := e.Acquire(t.Context(), req("durable:after", time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	top := maxToken(all)
	t.Logf("first token after the crash %d, highest acknowledged before it %d", after.Token(), top)
	if after.Token() <= top {
		t.Errorf("first token after the crash %d, not above the %d acknowledged before it: fencing went back", after.Token(), top)
	}
}

// TestDurable_transactionLocal: the executor's statements commit with
// synchronous_commit at least on whatever the session says, and leave the
// session's value as it was: the setting is their transaction's, so through
// a transaction pooler it reaches no other client's transaction.
func TestDurable_transactionLocal(t *testing.T) {
	conn, err := newPool(t, server(t).Addr()).Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, tc := range []struct{ session, want string }{
		{"off", "on"}, {"local", "on"}, {"on", "on"}, {"remote_write", "remote_write"}, {"remote_apply", "remote_apply"},
	} {
		if _, err := conn.Exec(t.Context(), "SET synchronous_commit = "+tc.session); err != nil {
			t.Fatal(err)
		}
		key, o := uniq(t, "durable-local:"), owner()
		var token int64
		var inside, after string
		err := conn.QueryRow(t.Context(), "SELECT lock4go_acquire($1, $2, 60000, '', 30000, 200, false), current_setting('synchronous_commit')",
			key, o).Scan(&token, &inside)
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(t.Context(), "SHOW synchronous_commit").Scan(&after); err != nil {
			t.Fatal(err)
		}
		if inside != tc.want || after != tc.session {
			t.Errorf("session %s: %s in the acquire's transaction, want %s; %s after it, want the session's", tc.session, inside, tc.want, after)
		}
		if _, err := conn.Exec(t.Context(), "SELECT lock4go_release($1, $2, 200, '')", key, o); err != nil {
			t.Fatal(err)
		}
	}
	if inside, after := pipelined(t, conn); inside != "on" || after != "off" {
		t.Errorf("a pipeline: %s in the statement after the acquire, want on until its Sync; %s after it, want the session's", inside, after)
	}
}

// pipelined sends an acquire and a read of synchronous_commit in one
// pipeline (one implicit transaction, up to its Sync) and returns that
// read, and the session's value after the pipeline.
func pipelined(t *testing.T, conn *pgxpool.Conn) (inside, after string) {
	t.Helper()
	if _, err := conn.Exec(t.Context(), "SET synchronous_commit = off"); err != nil {
		t.Fatal(err)
	}
	key, o := uniq(t, "durable-pipeline:"), owner()
	b := &pgx.Batch{}
	b.Queue("SELECT lock4go_acquire($1, $2, 60000, '', 30000, 200, false)", key, o)
	b.Queue("SELECT current_setting('synchronous_commit')").QueryRow(func(r pgx.Row) error { return r.Scan(&inside) })
	b.Queue("SELECT lock4go_release($1, $2, 200, '')", key, o)
	if err := conn.SendBatch(t.Context(), b).Close(); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(t.Context(), "SHOW synchronous_commit").Scan(&after); err != nil {
		t.Fatal(err)
	}
	return inside, after
}

// load starts workers goroutines that acquire fresh keys through e until
// ctx ends, recording the acquisitions e acknowledged.
func load(ctx context.Context, e *postgres.Executor, workers int) (*grants, *sync.WaitGroup) {
	acked := new(grants)
	wg := new(sync.WaitGroup)
	for w := range workers {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				r := req(fmt.Sprintf("durable:%d:%d", w, i), 10*time.Minute)
				if l, err := e.Acquire(ctx, r); err == nil {
					acked.add(grant{r.Key, r.Owner, l.Token()})
				}
			}
		})
	}
	return acked, wg
}

// grants records acknowledged acquisitions; it is safe for concurrent use.
type grants struct {
	mu sync.Mutex
	gs []grant
}

func (g *grants) add(x grant) {
	g.mu.Lock()
	g.gs = append(g.gs, x)
	g.mu.Unlock()
}

func (g *grants) len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.gs)
}

func (g *grants) all() []grant {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]grant(nil), g.gs...)
}

// maxToken returns the highest token of gs.
func maxToken(gs []grant) int64 {
	var top int64
	for _, g := range gs {
		top = max(top, g.token)
	}
	return top
}

// backendPID returns the process id of c's backend.
func backendPID(t *testing.T, c *pgconn.PgConn) int {
	t.Helper()
	res, err := c.Exec(t.Context(), "SELECT pg_backend_pid()").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Sscan(string(res[0].Rows[0][0]), &pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// awaitRecovery waits until the server at addr went through a crash
// restart (witness, a connection opened before the crash, fails) and
// serves new connections again.
func awaitRecovery(t *testing.T, witness *pgconn.PgConn, addr string) {
	t.Helper()
	if !testwait.Until(30*time.Second, func() bool {
		_, err := witness.Exec(t.Context(), "SELECT 1").ReadAll()
		return err != nil
	}) {
		t.Fatal("the server did not restart after a backend was killed")
	}
	if !testwait.Until(60*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		c, err := pgconn.Connect(ctx, testserver.PostgresDSN(addr))
		if err != nil {
			return false
		}
		defer c.Close(ctx)
		_, err = c.Exec(ctx, "SELECT 1").ReadAll()
		return err == nil
	}) {
		t.Fatal("the server did not come back after its crash restart")
	}
}

// lostGrants returns the grants whose row does not hold their owner and
// token.
func lostGrants(t *testing.T, pool *pgxpool.Pool, gs []grant) []grant {
	t.Helper()
	keys, owners, tokens := make([]string, len(gs)), make([]string, len(gs)), make([]int64, len(gs))
	for i, g := range gs {
		keys[i], owners[i], tokens[i] = g.key, g.owner, g.token
	}
	rows, err := pool.Query(t.Context(), `SELECT g.i FROM unnest($1::text[], $2::text[], $3::bigint[]) WITH ORDINALITY g(key, owner, token, i)
		WHERE NOT EXISTS (SELECT 1 FROM lock4go_locks l WHERE l.key = g.key AND l.owner = g.owner AND l.token = g.token)`,
		keys, owners, tokens)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lost []grant
	for rows.Next() {
		var i int64
		if err := rows.Scan(&i); err != nil {
			t.Fatal(err)
		}
		lost = append(lost, gs[i-1])
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return lost
}

// connect opens a connection of its own to addr, closed at the end of the
// test.
func connect(t *testing.T, addr string) *pgconn.PgConn {
	t.Helper()
	c, err := pgconn.Connect(t.Context(), testserver.PostgresDSN(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}
