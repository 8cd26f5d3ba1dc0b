package mysql

import (
	"context"

	"github.com/lock4go/lock4go/internal/queued"
)

// startSweeper starts, on the executor's first acquisition, the goroutine
// that sweeps every [Options.SweepInterval] (with jitter, so that many
// processes spread their sweeps), and reads the durability settings again
// after each sweep.
func (e *Executor) startSweeper() {
	e.sweeper.Start(e.core, e.opts.SweepInterval, func(msg string, args ...any) { e.log.Debug("mysql: "+msg, args...) },
		func(ctx context.Context) error {
			err := e.Sweep(ctx)
			rctx, cancel := context.WithTimeout(ctx, e.opts.CleanupTimeout)
			e.recheck(rctx)
			cancel()
			return err
		})
}

// Sweep removes what ended without a release: rows of keys whose leases,
// claims and queue entries all expired (a crashed process's), shares and
// queue entries whose key's row was deleted by hand, and void markers and
// wakes past their time; a key whose waiters outlived its holder is handed
// to them. It goes through the keys once, in order: a row another session
// keeps locked is skipped (SKIP LOCKED), and visited again by the next
// sweep. Every executor sweeps by itself every [Options.SweepInterval];
// Sweep is for tools and tests. Each statement is bounded by
// [Options.CleanupTimeout].
func (e *Executor) Sweep(ctx context.Context) error {
	return queued.SweepPages(ctx, e.opts.CleanupTimeout, e.stale, func(ctx context.Context, k string) error {
		return e.exec(ctx, e.sql.call("tidy", hexArg(k), num(e.claimMs)))
	})
}

// stale returns up to [queued.SweepBatch] keys after the key after, in
// order, that may hold nothing live.
func (e *Executor) stale(ctx context.Context, after string) ([]string, error) {
	rows, err := e.db.QueryContext(ctx, e.sql.call("stale", num(queued.SweepBatch), hexArg(after), num(e.claimMs)))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k []byte
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, string(k))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return keys, rows.Close()
}

// exec runs stmt, a call whose result sets (if any) are not needed.
func (e *Executor) exec(ctx context.Context, stmt string) error {
	_, err := e.db.ExecContext(ctx, stmt)
	return err
}
