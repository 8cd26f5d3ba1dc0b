package bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executor"
	lpostgres "github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/testserver"
)

// Postgres is a PostgreSQL database: lock4go's executor, the raw floor of
// its own two statements, session advisory locks and pglock's protocol.
const Postgres Backend = "postgres"

// startPostgres starts the PostgreSQL server of a run (pg_stat_statements
// loaded) and creates in its database lock4go's schema, pglock's table and
// the pg_stat_statements view.
func startPostgres() (*testserver.Server, error) {
	// 64 fleet processes with a pool and a LISTEN connection each, and a
	// connection per waiter of session advisory locks.
	s, err := testserver.StartPostgres("-c", "max_connections=1000")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = setUpPostgres(ctx, s.Addr())
	if err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	return s, nil
}

// setUpPostgres creates the schemas of the subjects at addr.
func setUpPostgres(ctx context.Context, addr string) error {
	pool, err := pgxpool.New(ctx, testserver.PostgresDSN(addr))
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := lpostgres.Migrate(ctx, pool, lpostgres.Options{}); err != nil {
		return err
	}
	_, err = pool.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements;"+pglockSchema)
	return err
}

// PostgresPool returns a pool of up to maxConns connections to env's
// PostgreSQL, closed with env.
func (e *Env) PostgresPool(maxConns int32) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(testserver.PostgresDSN(e.PostgresAddr))
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = maxConns
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	e.onClose(func() error { pool.Close(); return nil })
	return pool, nil
}

// postgresExecutor makes lock4go PostgreSQL executors, each over a pool of
// its own of maxConns connections, listening on a connection of its own.
func postgresExecutor(env *Env, maxConns int32) ExecutorFactory {
	return func(context.Context) (executor.Executor, func() error, error) {
		pool, err := env.PostgresPool(maxConns)
		if err != nil {
			return nil, nil, err
		}
		e, err := lpostgres.New(pool, lpostgres.Options{})
		if err != nil {
			return nil, nil, err
		}
		return e, e.Close, nil
	}
}

// RawPostgres is the PostgreSQL floor: lock4go's own acquire and release
// statements sent by hand (the same functions, arguments and query mode),
// with no Template, no waiting and no renewal.
func RawPostgres(pool *pgxpool.Pool) *Subject {
	return &Subject{
		Name: "raw postgres", Backend: Postgres, Kind: KindRaw,
		Note:      "lock4go_acquire + lock4go_release statements by hand",
		newLocker: shared(LockerFunc(func(ctx context.Context, key string) (Unlock, error) { return rawPostgres(ctx, pool, key) })),
	}
}

// rawMember is the raw floor's name in wait queues: it asks as lock4go's
// waiting requests do, though it never waits.
const rawMember = "lockbench-raw"

// rawPostgres is one acquire statement and its release.
func rawPostgres(ctx context.Context, pool *pgxpool.Pool, key string) (Unlock, error) {
	own := owner()
	var token int64
	err := pool.QueryRow(ctx, "SELECT lock4go_acquire($1, $2, $3, $4, $5, $6, $7)", pgx.QueryExecModeExec,
		key, own, leaseTTL.Milliseconds(), rawMember, int64(30000), int64(200), false).Scan(&token)
	switch {
	case err != nil:
		return nil, err
	case token <= 0:
		return nil, errBusy
	}
	return func(ctx context.Context) error {
		var n int64
		err := pool.QueryRow(ctx, "SELECT lock4go_release($1, $2, $3, $4)", pgx.QueryExecModeExec, key, own, int64(200), rawMember).Scan(&n)
		if err == nil && n != 1 {
			err = fmt.Errorf("release of %q: not held", key)
		}
		return err
	}, nil
}

// AdvisoryLock is a session advisory lock, as services take them by hand:
// a connection taken from the pool for the whole hold,
// pg_advisory_lock(hash of the key) (waiting in the server), and
// pg_advisory_unlock on the same connection. No lease, no fencing token;
// through a transaction pooler it is unsafe (see executors/postgres).
func AdvisoryLock(pool *pgxpool.Pool) *Subject {
	return &Subject{
		Name: "pg_advisory_lock", Backend: Postgres, Kind: KindPeer, Waits: true,
		Note:      "session advisory lock on a pinned connection; waits in the server",
		newLocker: shared(LockerFunc(func(ctx context.Context, key string) (Unlock, error) { return advisory(ctx, pool, key) })),
	}
}

// advisory takes the advisory lock of key on a connection of pool.
func advisory(ctx context.Context, pool *pgxpool.Pool, key string) (Unlock, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	id := keyHash(key)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", pgx.QueryExecModeExec, id); err != nil {
		conn.Release()
		return nil, err
	}
	return func(ctx context.Context) error {
		defer conn.Release()
		var ok bool
		err := conn.QueryRow(ctx, "SELECT pg_advisory_unlock($1)", pgx.QueryExecModeExec, id).Scan(&ok)
		if err == nil && !ok {
			err = fmt.Errorf("advisory unlock of %q: not held", key)
		}
		return err
	}, nil
}

// keyHash maps a key to an advisory lock id.
func keyHash(key string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return int64(h.Sum64())
}

// postgresCounter counts the statements PostgreSQL ran
// (pg_stat_statements, top-level statements: a function's inner statements
// are not counted), by statement.
type postgresCounter struct{ addr string }

// statsQuery reads pg_stat_statements, leaving itself out.
const statsQuery = `SELECT /* lockbench stats */ left(regexp_replace(query, '\s+', ' ', 'g'), 48), calls
FROM pg_stat_statements WHERE query NOT LIKE '%lockbench stats%'`

func (c postgresCounter) Snapshot(ctx context.Context) (Sample, error) {
	conn, err := pgx.Connect(ctx, testserver.PostgresDSN(c.addr))
	if err != nil {
		return Sample{}, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, statsQuery, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return Sample{}, err
	}
	out := Sample{Server: map[string]int64{}}
	var (
		query string
		calls int64
	)
	_, err = pgx.ForEachRow(rows, []any{&query, &calls}, func() error {
		out.Server[query] += calls
		return nil
	})
	return out, err
}

// postgresUse reads the statements PostgreSQL ran and the CPU its
// processes used: the postmaster's own and that of its children, live
// (from /proc) and exited (the postmaster's cutime and cstime).
func postgresUse(ctx context.Context, addr string) (backendUse, error) {
	s, err := postgresCounter{addr}.Snapshot(ctx)
	if err != nil {
		return backendUse{}, err
	}
	var u backendUse
	for _, n := range s.Server {
		u.cmds += n
	}
	pm, err := postmasterPID(ctx, addr)
	if err != nil {
		return u, err
	}
	u.cpu, err = treeCPU(pm)
	return u, err
}

// postmasterPID returns the process ID of the server at addr: the parent
// of a backend.
func postmasterPID(ctx context.Context, addr string) (int, error) {
	conn, err := pgx.Connect(ctx, testserver.PostgresDSN(addr))
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var backend int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
		return 0, err
	}
	f, err := procStat(backend)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(f[1])
}

// treeCPU returns the CPU time of process pid and its children, those
// that exited and were reaped included.
func treeCPU(pid int) (time.Duration, error) {
	f, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	total := ticks(f, 11, 12, 13, 14)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cf, err := procStat(child); err == nil && cf[1] == strconv.Itoa(pid) {
			total += ticks(cf, 11, 12)
		}
	}
	return time.Duration(total) * time.Second / clockTicks, nil
}

// procStat returns the fields of /proc/PID/stat after the command name:
// state, ppid, ... (utime is [11], stime [12], cutime [13], cstime [14]).
func procStat(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 15 {
		return nil, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	return f, nil
}

// ticks sums the fields at idx.
func ticks(f []string, idx ...int) int64 {
	var n int64
	for _, i := range idx {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		n += v
	}
	return n
}

// postgresSteps are the catalog's PostgreSQL subjects, in report order:
// the raw floor, lock4go, session advisory locks and pglock's protocol.
func postgresSteps(ctx context.Context, env *Env, add func(*Subject, error) error) ([]func() error, error) {
	pool, err := env.PostgresPool(128)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("postgres", testserver.PostgresDSN(env.PostgresAddr))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(128)
	db.SetMaxIdleConns(128)
	env.onClose(db.Close)
	return []func() error{
		func() error { return add(RawPostgres(pool), nil) },
		func() error { return add(Lock4go(ctx, Postgres, 1, postgresExecutor(env, 4))) },
		func() error { return add(AdvisoryLock(pool), nil) },
		func() error { return add(PglockProtocol(db, pglockLease, pglockHeartbeat), nil) },
	}, nil
}

// pglock's default lease and heartbeat.
const (
	pglockLease     = 20 * time.Second
	pglockHeartbeat = 5 * time.Second
)

// postgresFleetSubject builds a fleet worker's PostgreSQL subject: one pool
// for the process.
func postgresFleetSubject(ctx context.Context, env *Env, name string) (*Subject, error) {
	if name == "lock4go/postgres" {
		return Lock4go(ctx, Postgres, 1, postgresExecutor(env, 4))
	}
	pool, err := env.PostgresPool(128)
	if err != nil {
		return nil, err
	}
	return AdvisoryLock(pool), nil
}
