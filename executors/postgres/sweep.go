package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/lock4go/lock4go/internal/queued"
)

// startSweeper starts, on the executor's first acquisition, the goroutine
// that sweeps every [Options.SweepInterval] (with jitter, so that many
// processes spread their sweeps).
func (e *Executor) startSweeper() {
	e.sweeper.Start(e.core, e.opts.SweepInterval, func(msg string, args ...any) { e.log.Debug("postgres: "+msg, args...) }, e.Sweep)
}

// Sweep removes what ended without a release: rows of keys whose leases,
// claims and queue entries all expired (a crashed process's), shares and
// queue entries whose key's row was deleted by hand, and void markers past
// their time; a key whose waiters outlived its holder is handed to them.
// It goes through the keys once, in order: a row another session keeps
// locked is skipped, and visited again by the next sweep. Every executor
// sweeps by itself every [Options.SweepInterval]; Sweep is for tools and
// tests. Each statement is bounded by [Options.CleanupTimeout].
func (e *Executor) Sweep(ctx context.Context) error {
	return queued.SweepPages(ctx, e.opts.CleanupTimeout, e.stale, func(ctx context.Context, k string) error {
		_, err := e.pool.Exec(ctx, e.sql.tidy, pgxExec, k, e.claimMs)
		return err
	})
}

// stale returns up to [queued.SweepBatch] keys after the key after, in
// order, that may hold nothing live.
func (e *Executor) stale(ctx context.Context, after string) ([]string, error) {
	rows, err := e.pool.Query(ctx, e.sql.stale, pgxExec, int32(queued.SweepBatch), after)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
