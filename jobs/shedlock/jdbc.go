package shedlock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
)

// DB runs the statements of a [JDBC] executor: one adapter per driver
// ([Pgx] for pgx; database/sql for MySQL when its executor lands).
type DB interface {
	// Exec runs a statement and returns the number of rows it changed.
	Exec(ctx context.Context, sql string, args ...any) (int64, error)
	// QueryRow runs a query of one row and scans it into dest; no row is
	// an error for which NoRows reports true.
	QueryRow(ctx context.Context, sql string, args []any, dest ...any) error
	// NoRows reports whether err is QueryRow's "no row".
	NoRows(err error) bool
}

// JDBCOptions configure a [JDBC] executor. The zero value means the
// defaults each field names.
type JDBCOptions struct {
	// Name is the executor's name in a Template. Zero means "shedlock".
	Name string
	// Priority orders it among the Template's executors. Zero means 50.
	Priority int
	// LockedBy starts the locked_by value of every lock (followed by " "
	// and the lock's owner value, which makes each lock's own). Zero means
	// the host name, as ShedLock's default.
	LockedBy string
}

// JDBC is an executor on ShedLock's JDBC table. It is safe for concurrent
// use.
type JDBC struct {
	db   DB
	st   Statements
	opts JDBCOptions
}

var (
	_ executor.Executor  = (*JDBC)(nil)
	_ executor.Inspector = (*JDBC)(nil)
)

// NewJDBC returns an executor over db with the statements st
// ([Postgres]). The table must exist ([PostgresSchema]).
func NewJDBC(db DB, st Statements, opts JDBCOptions) *JDBC {
	if opts.Name == "" {
		opts.Name = "shedlock"
	}
	if opts.Priority == 0 {
		opts.Priority = 50
	}
	if opts.LockedBy == "" {
		opts.LockedBy, _ = os.Hostname()
	}
	return &JDBC{db: db, st: st, opts: opts}
}

// Name implements [executor.Executor].
func (j *JDBC) Name() string { return j.opts.Name }

// Priority implements [executor.Executor].
func (j *JDBC) Priority() int { return j.opts.Priority }

// Capabilities implements [executor.Executor]: none; Acquire never waits.
func (j *JDBC) Capabilities() executor.Capabilities { return executor.Capabilities{} }

// Acquire takes req.Key with one attempt, as ShedLock's provider does: the
// insert, then (where the database needs it) the update of an expired row.
func (j *JDBC) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	if err := req.ValidateFor(j.Capabilities()); err != nil {
		return nil, fmt.Errorf("shedlock: %w", err)
	}
	if req.Shared || req.Permits > 0 {
		return nil, fmt.Errorf("shedlock: %q: ShedLock's table has no read locks or permits: %w", req.Key, executor.ErrInvalidConfig)
	}
	l := &jdbcLease{j: j, key: req.Key, by: j.opts.LockedBy + " " + req.Owner, start: time.Now()}
	n, err := j.db.Exec(ctx, j.st.Insert, l.key, l.by, seconds(req.TTL))
	if err == nil && n == 0 && j.st.Update != "" {
		n, err = j.db.Exec(ctx, j.st.Update, l.key, l.by, seconds(req.TTL))
	}
	if err == nil && n == 1 {
		err = j.db.QueryRow(ctx, j.st.Token, []any{l.key, l.by}, &l.token)
	}
	switch {
	case err != nil:
		l.abandon(ctx)
		return nil, fmt.Errorf("shedlock: acquire %q: %w", req.Key, executor.AttemptError(ctx, err))
	case n != 1:
		return nil, fmt.Errorf("shedlock: acquire %q: %w", req.Key, executor.ErrNotAcquired)
	}
	return l, nil
}

// Inspect implements [executor.Inspector]: the job's holder (its
// locked_by), remaining lease and token (its locked_at).
func (j *JDBC) Inspect(ctx context.Context, key string) (executor.Holder, error) {
	var h executor.Holder
	var ms int64
	err := j.db.QueryRow(ctx, j.st.Inspect, []any{key}, &h.Owner, &ms, &h.Token)
	switch {
	case err != nil && j.db.NoRows(err):
		return h, fmt.Errorf("shedlock: inspect %q: %w", key, executor.ErrLockNotHeld)
	case err != nil:
		return h, fmt.Errorf("shedlock: inspect %q: %w: %w", key, executor.ErrBackend, err)
	}
	h.TTL, h.Waiters = time.Duration(ms)*time.Millisecond, -1
	return executor.NewHolder(executor.KindLock, 0, []executor.Holder{h}, -1), nil
}

// seconds returns d in seconds, as ShedLock passes its intervals, in
// whole milliseconds rounded up: the row is held at least as long as the
// Template counts the lease.
func seconds(d time.Duration) float64 { return float64(leases.Millis(d)) / 1000 }

// errNotHeld is the answer of a statement that changed no row.
var errNotHeld = errors.New("no live row of this holder")
