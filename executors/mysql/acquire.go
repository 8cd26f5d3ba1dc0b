package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/queued"
)

// Acquire makes one attempt to take req.Key for req.Owner with one
// statement: it inserts the key's row (or takes over a row whose lease
// expired, or the claim a release handed to this executor) and returns the
// new fencing token. It never waits; waiting is the Template's, helped by
// [Executor.WatchRelease]. A request with req.Wait that finds the key busy
// queues the executor in the key's wait queue in the same statement.
//
// It returns an error wrapping [executor.ErrNotAcquired] when another owner
// holds the key; [executor.ErrInvalidKey] for a key the tables cannot
// hold (over 1024 bytes, NUL, invalid UTF-8); [executor.ErrInvalidConfig]
// when the key is in use as another kind, or when an object or right is
// missing (see [Check]); [executor.ErrBackend] and the cause when the
// server did not answer, with the context's error and cause too when ctx's
// deadline passed during the round trip; [executor.ErrNotAcquired] and
// the context's error and cause when ctx was cancelled.
//
// Whenever the statement may have run without its answer reaching us (a
// lost reply, a call abandoned at ctx's end), Acquire reports an error,
// never a lease, and voids the owner in the background, so that the
// statement takes nothing should it land later. An attempt with the owner
// of the current holder returns the holder's lease again; an owner must
// not be reused after an error.
func (e *Executor) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	if err := req.ValidateFor(e.Capabilities()); err != nil {
		return nil, fmt.Errorf("mysql: acquire: %w", err)
	}
	if len(req.Owner) > maxOwnerLen {
		return nil, fmt.Errorf("mysql: acquire %q: an owner of %d bytes, longer than %d: %w", req.Key, len(req.Owner), maxOwnerLen, executor.ErrInvalidConfig)
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
	if queued.Tracked(req) && e.core.BusyLocally(req.Key, e.bell.listening) {
		// Still queued, nothing heard: no round trip needed to learn that
		// the key is busy.
		return nil, e.core.Busy(req.Key)
	}
	l := &lease{e: e}
	l.Init(req.Key, req.Owner)
	if req.Wait {
		l.member = e.member
	}
	code, err := e.try(ctx, l, req)
	if err == nil && ctx.Err() != nil {
		// Cancelled during the statement, which ran to its end: undo a grant.
		return nil, e.core.Abandon(ctx, l, code, req.TTL)
	}
	if err == nil {
		if code > 0 {
			l.Took(code)
		}
		if err := e.core.Answer(req, l, code); err != nil {
			return nil, err
		}
		return l, nil
	}
	return nil, e.failedAttempt(ctx, l, req, err)
}

// failedAttempt returns the error of l's acquire statement that failed with
// err, and voids l in the background when the statement may have run
// without its answer reaching us: the row may hold req.Owner.
func (e *Executor) failedAttempt(ctx context.Context, l *lease, req executor.Request, err error) error {
	if cerr := configError(err, e.opts); cerr != nil {
		// The server refused the statement: nothing was written.
		return fmt.Errorf("mysql: acquire %q: %w", req.Key, cerr)
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
	ttl := num(leases.Millis(req.TTL))
	if req.Shared || req.Permits > 0 {
		kind := queued.ShareKind(req)
		return e.acquireOn(ctx, l, e.sql.call("acquire_share", hexArg(req.Key), hexArg(req.Owner), ttl,
			hexArg(member), num(e.queueMs), hexArg(kind), num(req.Permits), num(e.claimMs)))
	}
	queued := req.Wait && e.waits.Queued(req.Key)
	return e.acquireOn(ctx, l, e.sql.call("acquire", hexArg(req.Key), hexArg(req.Owner), ttl,
		hexArg(member), num(e.queueMs), num(e.claimMs), flag(queued)))
}

// acquireOn runs the acquire statement stmt on a connection of db, on
// [queued.Core.CallContext], and returns its code. l's Start is taken once
// the connection is in hand, right before the statement is sent: the lease
// runs from when the statement ran, and waiting for a connection (or
// dialling one) must not eat it. A connection that could not be had, or
// that the driver found broken before it wrote anything
// (driver.ErrBadConn: tried once more on another), sent nothing: its error
// wraps errNotSent.
//
// A statement InnoDB chose as a deadlock's victim (error 1213) was rolled
// back whole: it is sent again at once, up to twice.
func (e *Executor) acquireOn(ctx context.Context, l *lease, stmt string) (int64, error) {
	badConn := 0
	for try := 0; ; try++ {
		conn, err := e.db.Conn(ctx)
		if err != nil {
			return 0, e.noConnection(ctx, err)
		}
		code, denied, err := e.acquireConn(ctx, conn, l, stmt)
		_ = conn.Close()
		e.denied(denied)
		switch {
		case errors.Is(err, driver.ErrBadConn) && badConn == 0:
			badConn++
			continue
		case errors.Is(err, driver.ErrBadConn):
			err = fmt.Errorf("%w: %w", errNotSent, err)
		case deadlock(err) && try < maxDeadlockRetries && ctx.Err() == nil:
			continue
		}
		return code, err
	}
}

// acquireConn runs stmt on conn and scans its code and ring's flag.
func (e *Executor) acquireConn(ctx context.Context, conn *sql.Conn, l *lease, stmt string) (code int64, denied bool, err error) {
	ctx, cancel := e.core.CallContext(ctx)
	defer cancel()
	l.Sent()
	err = conn.QueryRowContext(ctx, stmt).Scan(&code, &denied)
	return code, denied, err
}

// errNotSent marks a statement that was never sent: no connection.
var errNotSent = errors.New("mysql: no connection")

// errPoolFull marks a statement that was never sent because every
// connection of db stayed in use until its context ended.
var errPoolFull = fmt.Errorf("%w: the pool had no free connection", errNotSent)

// noConnection is the error of a statement for which db gave no
// connection: errPoolFull, with db's limit, when ctx ended while all of
// its connections were in use; errNotSent otherwise (a failed dial).
func (e *Executor) noConnection(ctx context.Context, err error) error {
	st := e.db.Stats()
	if ctx.Err() != nil && st.MaxOpenConnections > 0 && st.InUse >= st.MaxOpenConnections {
		return fmt.Errorf("%w (all %d of its SetMaxOpenConns in use) before the attempt's deadline: %w", errPoolFull, st.MaxOpenConnections, err)
	}
	return fmt.Errorf("%w: %w", errNotSent, err)
}

// wrote reports whether a statement that failed with err may have run and
// committed: not when nothing was sent, nor when the server answered with
// an error (the procedure's transaction was rolled back), unless that
// error says the statement was interrupted (it may have committed before).
func wrote(err error) bool {
	if errors.Is(err, errNotSent) {
		return false
	}
	if me := serverErr(err); me != nil {
		return interrupted(me.Number)
	}
	return true
}

// acquireErr reports an acquire round trip of key that failed with err, or
// that the caller abandoned, as [queued.Core.AcquireErr] does. An attempt
// that got no connection from a full pool before its deadline is
// [executor.ErrBackend] saying so: nothing was sent, so no server was
// slow to answer.
func (e *Executor) acquireErr(ctx context.Context, key string, err error) error {
	if errors.Is(err, errPoolFull) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("mysql: acquire %q: %w: %w", key, executor.ErrBackend, err)
	}
	return e.core.AcquireErr(ctx, key, err)
}

// denied warns, once, when a statement reported that the server refused
// to wake another executor's waiter (KILL of another user's statement):
// that executor's waiters then wait for their retry interval.
func (e *Executor) denied(d bool) {
	if d && e.warnedDenied.CompareAndSwap(false, true) {
		e.log.Warn("mysql: the server refused to wake a waiter of an executor connected as another MySQL user (KILL of another user's statement needs CONNECTION_ADMIN): such waiters get the key at their retry interval; run executors that share keys as one user, or grant it CONNECTION_ADMIN (MariaDB: CONNECTION ADMIN)")
	}
}
