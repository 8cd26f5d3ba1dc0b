package mysql

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"github.com/lock4go/lock4go/internal/lifecycle"
	"github.com/lock4go/lock4go/internal/queued"
)

// WatchRelease implements [executor.Waiter]. An attempt of a waiting
// request ([executor.Request.Wait]) that finds the key busy queues the
// executor in the key's wait queue, in arrival order; a release hands the
// key to the executor at the head (a claim on it for
// [Options.ClaimWindow]), records a wake for it and, after its commit,
// interrupts the executor's wake connection (see docs/mysql.md,
// "Waiting"). The returned channel receives a value after such a wake,
// also one that came between that attempt and WatchRelease, and after the
// wake connection reconnected, which may have missed wakes.
//
// All waits of an executor share its one wake connection and its anchor,
// two connections of db held from the first WatchRelease until 30s after
// the last: the first
// waits for it (bounded by ctx and 250ms) and signals its channel at once,
// since a wake may have come before it. Watches never block on a
// connection that is down: the channel may then never fire, and the
// Template polls at its retry interval. Once the executor is closed the
// channel is ready at once (see [Executor.Close]).
//
// Expiries wake nobody; waiters notice them by polling. stop must be
// called exactly once (later calls do nothing); it never blocks on the
// network. A stop that leaves nobody of this executor waiting for key
// removes the executor from key's queue in the background, unless another
// of its waiters watches key within [queued.LeaveDelay].
func (e *Executor) WatchRelease(ctx context.Context, key string) (released <-chan struct{}, stop func()) {
	if e.core.Closed() {
		return lifecycle.Fired(), func() {}
	}
	w := queued.NewWatcher()
	// Counted first, so that an idle bell that sees no waiter and stops
	// does so before start.
	e.waits.Add(key, w, e.opts.ClaimWindow)
	first := e.bell.start()
	e.bell.wait(ctx)
	if first || !e.bell.listening() {
		e.waits.WakeKey(key, w)
	}
	return w.C(), e.core.Unwatch(key, w, nil)
}

// serve runs wait calls on conn until it fails, the executor closes, or
// no waiter has used the bell for bellIdle.
func (b *bell) serve(conn *sql.Conn) error {
	life := b.e.core.Life()
	secs := strconv.FormatFloat(bellSleep.Seconds(), 'f', -1, 64)
	var idleSince time.Time
	for {
		b.calls++
		stmt := b.e.sql.call("wait", hexArg(b.e.member), num(b.calls), rawArg(secs))
		ctx, cancel := context.WithTimeout(life, bellSleep+bellTimeout)
		err := b.take(ctx, conn, stmt)
		cancel()
		switch {
		case life.Err() != nil:
			return nil
		case err != nil && !isInterrupted(err):
			return err
		case err != nil:
			// KILL QUERY ends the statement it finds, not the procedure's
			// transaction, and no handler of the procedure runs: roll it
			// back, or its locks on the wake rows would stall the releases
			// that serve this executor (and the next call would fail, 1568).
			if err := b.rollback(conn); err != nil {
				return err
			}
		}
		if idleSince = b.idle(idleSince); idleSince.IsZero() {
			return errIdle
		}
	}
}

// take runs one wait call and wakes the waiters of the keys it returns.
func (b *bell) take(ctx context.Context, conn *sql.Conn, stmt string) error {
	rows, err := conn.QueryContext(ctx, stmt)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k, kind []byte
		if err := rows.Scan(&k, &kind); err != nil {
			return err
		}
		if string(kind) == "s" {
			b.e.waits.WakeShared(string(k), b.e.opts.ClaimWindow)
		} else {
			b.e.waits.Wake(string(k), b.e.opts.ClaimWindow)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rows.Close()
}

// rollback ends, on the bell's connection, a transaction a ring left open.
func (b *bell) rollback(conn *sql.Conn) error {
	ctx, cancel := context.WithTimeout(b.e.core.Life(), bellTimeout)
	defer cancel()
	_, err := conn.ExecContext(ctx, "ROLLBACK")
	return err
}

// isInterrupted reports whether err is the server's answer to a wait call
// a release rang (KILL QUERY): the call ended, the connection lives.
func isInterrupted(err error) bool {
	me := serverErr(err)
	return me != nil && me.Number == errInterrupted
}

// idle returns since when the executor has had no waiter (now, if it has
// one now: a waiter resets it), or the zero time when it has had none for
// bellIdle: the bell then stops, and the next WatchRelease starts it again
// as the first.
func (b *bell) idle(since time.Time) time.Time {
	now := time.Now()
	switch {
	case b.e.waits.Active():
		return now
	case since.IsZero() || now.Sub(since) < bellIdle:
		if since.IsZero() {
			return now
		}
		return since
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.e.waits.Active() { // a waiter came: WatchRelease counts it before start
		return now
	}
	b.started, b.confirmed, b.degraded, b.late = false, false, false, false
	b.ready = make(chan struct{})
	return time.Time{}
}
