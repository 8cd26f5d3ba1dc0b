package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// sweepBatch bounds the keys one sweep statement returns.
const sweepBatch = 500

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
	after := ""
	for {
		keys, err := e.stale(ctx, after)
		if err != nil {
			return err
		}
		for _, k := range keys {
			sctx, cancel := context.WithTimeout(ctx, e.opts.CleanupTimeout)
			_, err := e.pool.Exec(sctx, e.sql.tidy, pgxExec, k, e.claimMs)
			cancel()
			if err != nil {
				return err
			}
		}
		if len(keys) < sweepBatch {
			return nil
		}
		after = keys[len(keys)-1]
	}
}

// stale returns up to sweepBatch keys after the key after, in order, that
// may hold nothing live.
func (e *Executor) stale(ctx context.Context, after string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, e.opts.CleanupTimeout)
	defer cancel()
	rows, err := e.pool.Query(ctx, e.sql.stale, pgxExec, int32(sweepBatch), after)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
