package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/queued"
)

// maxKeyLen bounds a key: it must fit in a B-tree index entry and in a
// notification's payload.
const maxKeyLen = 2048

// Acquire makes one attempt to take req.Key for req.Owner with one
// statement: it inserts the key's row (or takes over a row whose lease
// expired, or the claim a release handed to this executor) and returns the
// new fencing token. It never waits; waiting is the Template's, helped by
// [Executor.WatchRelease]. A request with req.Wait that finds the key busy
// queues the executor in the key's wait queue in the same statement.
//
// It returns an error wrapping [executor.ErrNotAcquired] when another owner
// holds the key; [executor.ErrInvalidKey] for a key PostgreSQL cannot store
// (over 2048 bytes, NUL, invalid UTF-8); [executor.ErrInvalidConfig] when
// the key is in use as another kind, or when the schema is missing (run
// [Migrate]); [executor.ErrBackend] and the cause when the database did not
// answer, with the context's error and cause too when ctx's deadline
// passed during the round trip; [executor.ErrNotAcquired] and the
// context's error and cause when ctx was cancelled.
//
// Whenever the statement may have run without its answer reaching us (a
// lost reply, a call abandoned at ctx's end), Acquire reports an error,
// never a lease, and voids the owner in the background, so that the
// statement takes nothing should it land later. An attempt with the owner
// of the current holder returns the holder's lease again; an owner must
// not be reused after an error.
func (e *Executor) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	if err := req.ValidateFor(e.Capabilities()); err != nil {
		return nil, fmt.Errorf("postgres: acquire: %w", err)
	}
	if err := e.core.CheckKey("acquire", req.Key); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, e.core.GaveUp(ctx, req.Key)
	}
	if err := e.checkFirst(ctx); err != nil {
		return nil, e.checkFailed(ctx, req.Key, err)
	}
	e.startSweeper()
	if queued.Tracked(req) && e.core.BusyLocally(req.Key, e.listener.listening) {
		// Still queued, nothing heard: no round trip needed to learn that
		// the key is busy.
		return nil, e.core.Busy(req.Key)
	}
	l := &lease{e: e}
	l.Init(req.Key, req.Owner)
	code, err := e.try(ctx, l, req)
	if err == nil && ctx.Err() != nil {
		// Cancelled during the statement, which ran to its end: undo a grant.
		return nil, e.core.Abandon(ctx, l, code, req.TTL)
	}
	if err == nil {
		return e.answer(l, req, code)
	}
	return nil, e.failedAttempt(ctx, l, req, err)
}

// answer turns the answer of l's acquire statement, a token or a code, into
// Acquire's result.
func (e *Executor) answer(l *lease, req executor.Request, code int64) (executor.Lease, error) {
	if code > 0 {
		l.Took(code)
	}
	if err := e.core.Answer(req, l, code); err != nil {
		return nil, err
	}
	return l, nil
}

// failedAttempt returns the error of l's acquire statement that failed with
// err, and voids l in the background when the statement may have run
// without its answer reaching us: the row may hold req.Owner.
func (e *Executor) failedAttempt(ctx context.Context, l *lease, req executor.Request, err error) error {
	if cerr := configError(err, e.fix); cerr != nil {
		// The server refused the statement: nothing was written.
		return fmt.Errorf("postgres: acquire %q: %w", req.Key, cerr)
	}
	if wrote(err) {
		e.core.VoidLater(l, req.TTL, false)
	}
	return e.acquireErr(ctx, req.Key, err)
}

// try runs the acquire statement of req's kind for l.
func (e *Executor) try(ctx context.Context, l *lease, req executor.Request) (int64, error) {
	member := ""
	if req.Wait {
		member = e.member
	}
	ttl := leases.Millis(req.TTL)
	if req.Shared || req.Permits > 0 {
		kind := queued.ShareKind(req)
		return e.acquireInt(ctx, l, e.sql.acquireShare, req.Key, req.Owner, ttl, member, e.queueMs, kind, int32(req.Permits), e.claimMs)
	}
	queued := req.Wait && e.waits.Queued(req.Key)
	return e.acquireInt(ctx, l, e.sql.acquire, req.Key, req.Owner, ttl, member, e.queueMs, e.claimMs, queued)
}

// acquireInt runs an acquire statement on a connection of the pool, on
// [queued.Core.CallContext], and scans its integer. l's Start is taken once
// the connection is in hand, right before the statement is sent: the
// lease runs from when the statement ran, and waiting for a connection
// (or dialling one) must not eat it. A connection that could not be had
// sent nothing: its error wraps errNotSent.
//
// The wait for a connection ends with ctx (nothing was sent: no grace for
// a cancelled caller); the statement runs on [queued.Core.CallContext].
func (e *Executor) acquireInt(ctx context.Context, l *lease, sql string, args ...any) (int64, error) {
	conn, err := e.pool.Acquire(ctx)
	if err != nil {
		return 0, e.noConnection(ctx, err)
	}
	defer conn.Release()
	ctx, cancel := e.core.CallContext(ctx)
	defer cancel()
	l.Sent()
	var v int64
	err = conn.QueryRow(ctx, sql, append([]any{pgxExec}, args...)...).Scan(&v)
	return v, err
}

// errNotSent marks a statement that was never sent: no connection.
var errNotSent = errors.New("postgres: no connection")

// errPoolFull marks a statement that was never sent because every
// connection of the pool stayed in use until its context ended.
var errPoolFull = fmt.Errorf("%w: the pool had no free connection", errNotSent)

// noConnection is the error of a statement for which the pool gave no
// connection: errPoolFull, with the pool's count, when ctx ended while all
// of its connections were in use; errNotSent otherwise (a failed dial).
func (e *Executor) noConnection(ctx context.Context, err error) error {
	st := e.pool.Stat()
	if ctx.Err() != nil && st.AcquiredConns() >= st.MaxConns() {
		return fmt.Errorf("%w (all %d of its MaxConns in use) before the attempt's deadline: %w", errPoolFull, st.MaxConns(), err)
	}
	return fmt.Errorf("%w: %w", errNotSent, err)
}

// wrote reports whether a statement that failed with err may have run and
// committed: not when nothing was sent, nor when the server answered with
// an error (the statement's transaction was rolled back).
func wrote(err error) bool {
	var pe *pgconn.PgError
	return !pgconn.SafeToRetry(err) && !errors.As(err, &pe) && !errors.Is(err, errNotSent)
}

// acquireErr reports an acquire round trip of key that failed with err, or
// that the caller abandoned, as [queued.Core.AcquireErr] does. An attempt
// that got no connection from a full pool before its deadline is
// [executor.ErrBackend] saying so: nothing was sent, so no database was
// slow to answer.
func (e *Executor) acquireErr(ctx context.Context, key string, err error) error {
	if errors.Is(err, errPoolFull) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("postgres: acquire %q: %w: %w", key, executor.ErrBackend, err)
	}
	return e.core.AcquireErr(ctx, key, err)
}
