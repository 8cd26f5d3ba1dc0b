package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/lifecycle"
	"github.com/lock4go/lock4go/internal/queued"
)

// Executor is the MySQL / MariaDB lock executor. It implements
// [executor.Executor], [executor.Waiter], [executor.BatchRenewer],
// [executor.Inspector] and [executor.ForceReleaser]. It is safe for
// concurrent use. Close it when done; the *sql.DB stays the caller's.
type Executor struct {
	db   *sql.DB
	opts Options
	log  *slog.Logger
	sql  calls
	core *queued.Core[*lease]

	// The executor in wait queues: its member name, its bell (the wake
	// connection), and the durations its statements pass, in
	// milliseconds.
	member  string
	claimMs int64
	queueMs int64
	bell    *bell
	waits   queued.Waits

	checked queued.FirstCheck // Check before the first acquisition
	sweeper queued.Sweeper
	// warnedDenied is set once a release reported that the server refused
	// to wake a waiter (see ring in schema.sql).
	warnedDenied atomic.Bool
}

var (
	_ executor.Executor      = (*Executor)(nil)
	_ executor.Waiter        = (*Executor)(nil)
	_ executor.BatchRenewer  = (*Executor)(nil)
	_ executor.Inspector     = (*Executor)(nil)
	_ executor.ForceReleaser = (*Executor)(nil)
)

// New returns an executor that locks through db, whose tables and
// procedures [Migrate] created (with the same Table and Database). db may
// be any *sql.DB whose driver speaks to MySQL 8.0+ or MariaDB 10.6+
// (github.com/go-sql-driver/mysql, or a wrapper of it); its DSN needs no
// particular setting (no parseTime: the executor reads times as integers).
// New never creates or closes db, and makes no round trip; the caller owns
// db. The executor's first acquisition runs [Check] first (once: later
// ones pay nothing), and fails with its error wrapping
// [executor.ErrInvalidConfig] when an object or a right is missing or the
// server may lose commits. New returns an error wrapping
// [executor.ErrInvalidConfig] for a nil db or invalid options.
//
// Every statement is one CALL sent as text (one round trip, no prepared
// statement), with its keys and owners as hexadecimal literals, and needs
// no session state: the pool may recycle connections, or go through a
// proxy that shares server connections between clients between
// statements. The executor's waiters hold one connection of db while they
// wait (see [Executor.WatchRelease]).
func New(db *sql.DB, opts Options) (*Executor, error) {
	if lifecycle.IsNil(db) {
		return nil, fmt.Errorf("mysql: nil *sql.DB: %w", executor.ErrInvalidConfig)
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	e := &Executor{
		db:      db,
		opts:    opts,
		log:     opts.Logger.With("executor", opts.Name),
		sql:     newCalls(newNames(opts)),
		member:  queued.NewMember(),
		claimMs: leases.Millis(opts.ClaimWindow),
		queueMs: leases.Millis(max(queued.QueueTTL, opts.ClaimWindow)),
	}
	e.core = queued.New(queued.Config[*lease]{
		Prefix:         "mysql",
		Log:            e.log,
		CleanupTimeout: opts.CleanupTimeout,
		MaxKeyLen:      maxKeyLen,
		Waits:          &e.waits,
		Statements: queued.Statements[*lease]{
			Void:    e.voidAll,
			Release: e.releaseHeld,
			Leave:   e.leave,
		},
	})
	e.bell = newBell(e)
	return e, nil
}

// maxKeyLen bounds a key: the key columns are VARBINARY(1024), the
// Template's own limit.
const maxKeyLen = 1024

// maxOwnerLen bounds an owner value: the owner columns are VARBINARY(255).
const maxOwnerLen = 255

// Name returns the executor's name ("mysql" unless configured).
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

// Close ends the executor, as every executor's Close does (see package
// executor, "Close"):
//
//   - From its start, Acquire, Inspect and ForceRelease fail with an error
//     wrapping [executor.ErrClosed], and the channels of WatchRelease
//     (open ones and later ones) are ready, so that waiters try again and
//     learn it.
//   - Every lock, read lock or permit still held through the executor is
//     reported lost (its AfterLost functions start, and
//     [executor.LostCause] wraps [executor.ErrClosed]), then released by
//     owner, which hands the key to the next executor in its wait queue;
//     and the executor leaves the wait queues it stands in. These
//     statements run together within [Options.CleanupTimeout]; a lock
//     whose release fails keeps its key until its lease ends. Renew and
//     Release of such a lease return an error wrapping
//     [executor.ErrLockNotHeld].
//   - It ends the wake connection and the background work and waits for
//     them: the sweeper, departures from queues, and the voids of lost
//     replies, which get one more round ending, with every statement in
//     it, [Options.CleanupTimeout] after Close began.
//
// It does not close db: the caller owns it. Close returns within about one
// [Options.CleanupTimeout], however many statements are pending and
// whether or not the server answers, with the errors of the releases that
// failed. It is idempotent: later calls return nil at once.
func (e *Executor) Close() error { return e.core.Close(nil, nil) }

// answerErr is the error of an acquire statement of req that the server
// answered with err.
func (e *Executor) failed(ctx context.Context, op, key string, err error) error {
	return failed(ctx, e.opts, op, key, err)
}
