package postgres

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/queued"
)

// Executor is the PostgreSQL lock executor. It implements
// [executor.Executor], [executor.Waiter], [executor.BatchRenewer],
// [executor.Inspector] and [executor.ForceReleaser]. It is safe for
// concurrent use. Close it when done; the pool stays the caller's.
type Executor struct {
	pool *pgxpool.Pool
	opts Options
	log  *slog.Logger
	sql  statements

	// The executor in wait queues: its member name and wake channel, and
	// the durations its statements pass, in milliseconds.
	member   string
	channel  string
	claimMs  int64
	queueMs  int64
	listener *listener
	waits    queued.Waits

	// core holds the leases held, the voids of lost replies, the
	// background work (voids, departures, the sweeper, the listener) and
	// Close.
	core *queued.Core[*lease]

	checked queued.FirstCheck // Check before the first acquisition
	sweeper queued.Sweeper
}

var (
	_ executor.Executor      = (*Executor)(nil)
	_ executor.Inspector     = (*Executor)(nil)
	_ executor.ForceReleaser = (*Executor)(nil)
)

// New returns an executor that locks through pool, whose tables and
// functions [Migrate] created (with the same Table and Schema). New never
// creates or closes the pool, and makes no round trip; the caller owns
// the pool. The executor's first acquisition runs [Check] first (two
// read-only statements, once: later ones pay nothing), and fails with its
// error wrapping [executor.ErrInvalidConfig] when the schema, an object or
// a right is missing. New returns an error wrapping
// [executor.ErrInvalidConfig] for a nil pool, invalid options or a
// ListenDSN that does not parse.
//
// Every statement is sent with [pgx.QueryExecModeExec] (the extended
// protocol with an unnamed statement, one round trip), whatever the pool's
// DefaultQueryExecMode, so the pool may go through PgBouncer in
// transaction mode. The LISTEN connection may not: see
// [Options.ListenDSN].
func New(pool *pgxpool.Pool, opts Options) (*Executor, error) {
	if pool == nil {
		return nil, fmt.Errorf("postgres: nil pool: %w", executor.ErrInvalidConfig)
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	listenCfg, err := listenConfig(pool, opts.ListenDSN)
	if err != nil {
		return nil, err
	}
	n := newNames(opts)
	e := &Executor{
		pool:    pool,
		opts:    opts,
		log:     opts.Logger.With("executor", opts.Name),
		sql:     newStatements(n),
		member:  queued.NewMember(),
		claimMs: leases.Millis(opts.ClaimWindow),
		queueMs: leases.Millis(max(queued.QueueTTL, opts.ClaimWindow)),
	}
	e.core = queued.New(queued.Config[*lease]{
		Prefix:         "postgres",
		Log:            e.log,
		CleanupTimeout: opts.CleanupTimeout,
		MaxKeyLen:      maxKeyLen,
		Waits:          &e.waits,
		Statements: queued.Statements[*lease]{
			Void:    e.void,
			Release: e.releaseHeld,
			Leave:   e.leave,
		},
	})
	e.channel = n.channel + e.member
	e.listener = newListener(e, listenCfg)
	return e, nil
}

// listenConfig returns the settings of the LISTEN connection: dsn's, or a
// copy of the pool's when dsn is empty.
func listenConfig(pool *pgxpool.Pool, dsn string) (*pgconn.Config, error) {
	if dsn == "" {
		return pool.Config().ConnConfig.Config.Copy(), nil
	}
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: ListenDSN: %w: %w", executor.ErrInvalidConfig, err)
	}
	return cfg, nil
}

// Name returns the executor's name ("postgres" unless configured).
func (e *Executor) Name() string { return e.opts.Name }

// Priority returns the executor's priority ([Priority] unless configured).
func (e *Executor) Priority() int { return e.opts.Priority }

// Capabilities implements [executor.Executor]: the Template's watchdog
// renews the leases (many per statement, see [Executor.RenewBatch]),
// waiters queue in the database (see [Executor.WatchRelease]), and the
// executor has read locks and semaphores.
func (e *Executor) Capabilities() executor.Capabilities {
	return executor.Capabilities{Wait: executor.WaitQueued, SharedLocks: true, Semaphores: true}
}

// pgxExec is the query mode of every statement: the extended protocol
// with an unnamed statement, one round trip, safe through PgBouncer in
// transaction mode.
const pgxExec = pgx.QueryExecModeExec

// queryInt runs the one-statement sql with args and scans its one
// integer, on [queued.Core.CallContext].
func (e *Executor) queryInt(ctx context.Context, sql string, args ...any) (int64, error) {
	ctx, cancel := e.core.CallContext(ctx)
	defer cancel()
	var v int64
	err := e.pool.QueryRow(ctx, sql, append([]any{pgxExec}, args...)...).Scan(&v)
	return v, err
}
