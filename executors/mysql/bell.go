package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/lock4go/lock4go/internal/lifecycle"
)

// Timing of the bell (variables for the tests).
var (
	// bellSleep is how long one wait call sleeps when no wake comes: the
	// connection's keep-alive. A connection cut without a word (a
	// partition) is noticed when a call does not return within bellSleep
	// plus bellTimeout.
	bellSleep = 5 * time.Second
	// bellIdle is how long the bell stays up without a waiter: it holds a
	// connection of the pool, so a process that no longer waits gives it
	// back.
	bellIdle = 30 * time.Second
)

const (
	// bellTimeout bounds connecting and taking the wake lock, and is the
	// slack of a wait call over its sleep.
	bellTimeout = 5 * time.Second
	// bellFirst bounds how long the first WatchRelease waits for the bell.
	bellFirst = 250 * time.Millisecond
)

// errIdle ends a bell that no waiter used for bellIdle.
var errIdle = errors.New("mysql: wake connection idle")

// bell is the executor's wake connection, up from the first wait until
// bellIdle after the last: one connection of the pool that holds the named
// lock <Table>:w:<member> (GET_LOCK; it names the connection to the
// releases of other executors, which find it with IS_USED_LOCK) and runs
// the wait procedure, which waits until a release that hands a key to this
// executor interrupts it (KILL QUERY) and then returns the keys handed
// over. The wait is for the named lock <Table>:w:<member>:z, which a
// second connection of the pool, the anchor, holds as long as the bell is
// up: a statement waiting for a named lock is killed at once, where
// MariaDB stalled the KILL of a sleeping one (SLEEP) for seconds. It is a
// hint: a wake lost or spurious costs a waiter its retry interval or an
// attempt, never a lock, since the claim in the table decides who takes
// the key. Its goroutine reconnects after an error and reports a gap (a
// wake may have been missed) when it is up again.
type bell struct {
	e      *Executor
	name   string // the named lock of the wake connection
	anchor string // the named lock the anchor holds and the wake connection waits for

	mu        sync.Mutex
	started   bool
	confirmed bool          // up at least once
	ready     chan struct{} // closed when first up
	degraded  bool          // not up now
	late      bool          // a caller stopped waiting for it to come up
	deaf      bool          // the pool's connections do not see its lock: releases cannot ring it
	warned    bool          // deaf was reported
	calls     int64         // wait calls made, numbering them
}

func newBell(e *Executor) *bell {
	name := e.opts.Table + ":w:" + e.member
	return &bell{e: e, name: name, anchor: name + ":z", ready: make(chan struct{})}
}

// start starts the bell's goroutine on first use and reports whether this
// call started it. It does nothing once the executor is closed.
func (b *bell) start() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started || !b.e.core.Go(b.run) {
		return false
	}
	b.started = true
	return true
}

// wait waits until the bell is first up, bounded by ctx and bellFirst,
// and not at all while it is known to be down. A caller that stops
// waiting makes the bell report a gap when it comes up, since a wake may
// have been missed before.
func (b *bell) wait(ctx context.Context) {
	b.mu.Lock()
	if b.confirmed || b.degraded {
		b.late = b.late || b.degraded
		b.mu.Unlock()
		return
	}
	ready := b.ready
	b.mu.Unlock()
	t := time.NewTimer(bellFirst)
	defer t.Stop()
	select {
	case <-ready:
		return
	case <-b.e.core.Life().Done():
		return
	case <-ctx.Done():
	case <-t.C:
	}
	b.mu.Lock()
	if !b.confirmed {
		b.late, b.degraded = true, true
	}
	b.mu.Unlock()
}

// listening reports whether the bell is up and releases can ring it, so a
// queued waiter can count on being woken.
func (b *bell) listening() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.confirmed && !b.degraded && !b.deaf
}

// run connects, and serves wait calls until the executor closes or the
// bell is idle.
func (b *bell) run() {
	life := b.e.core.Life()
	backoff := lifecycle.Backoff{Min: 50 * time.Millisecond, Max: 2 * time.Second}
	for life.Err() == nil {
		conn, anchor, err := b.connect()
		if err != nil {
			b.setDegraded()
			if life.Err() == nil {
				b.e.log.Debug("mysql: wake connection failed; waiters poll until it is back", "err", err)
			}
			if !backoff.Wait(life.Done()) {
				return
			}
			continue
		}
		backoff.Reset()
		b.confirm()
		err = b.serve(conn)
		discard(conn)
		discard(anchor)
		if errors.Is(err, errIdle) {
			return
		}
		b.setDegraded()
		if life.Err() == nil {
			b.e.log.Debug("mysql: wake connection lost; reconnecting, waiters poll meanwhile", "err", err)
		}
	}
}

// connect takes two connections of the pool: the anchor, which holds the
// lock the wake connection waits for, and the wake connection, in
// autocommit mode, which holds the bell's named lock; and checks that the
// pool's other connections see the latter (the releases of other
// executors must find it).
func (b *bell) connect() (conn, anchor *sql.Conn, err error) {
	ctx, cancel := context.WithTimeout(b.e.core.Life(), bellTimeout)
	defer cancel()
	if anchor, _, err = b.hold(ctx, b.anchor); err != nil {
		return nil, nil, err
	}
	conn, id, err := b.hold(ctx, b.name)
	if err != nil {
		discard(anchor)
		return nil, nil, err
	}
	b.probe(ctx, id)
	return conn, anchor, nil
}

// hold takes a connection of the pool, in autocommit mode, that holds the
// named lock name, and returns it with its id.
func (b *bell) hold(ctx context.Context, name string) (*sql.Conn, int64, error) {
	conn, err := b.e.db.Conn(ctx)
	if err != nil {
		return nil, 0, err
	}
	id, err := b.lock(ctx, conn, name)
	if err != nil {
		discard(conn)
		return nil, 0, err
	}
	return conn, id, nil
}

// lock sets conn to autocommit and takes the named lock name on it, ending
// an earlier connection of this bell that still holds it (one the server
// has not yet seen die), and returns conn's id.
func (b *bell) lock(ctx context.Context, conn *sql.Conn, name string) (int64, error) {
	if _, err := conn.ExecContext(ctx, "SET SESSION autocommit = 1"); err != nil {
		return 0, err
	}
	q := quoteString(name)
	var (
		got    sql.NullInt64
		id     int64
		holder sql.NullInt64
	)
	err := conn.QueryRowContext(ctx, "SELECT GET_LOCK("+q+", 0), CONNECTION_ID(), IS_USED_LOCK("+q+")").Scan(&got, &id, &holder)
	if err != nil || got.Int64 == 1 {
		return id, err
	}
	if holder.Valid {
		// The name is this executor's own: its holder is a former bell.
		_, _ = conn.ExecContext(ctx, "KILL CONNECTION "+strconv.FormatInt(holder.Int64, 10))
	}
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK("+q+", 5)").Scan(&got); err != nil {
		return id, err
	}
	if got.Int64 != 1 {
		return id, fmt.Errorf("mysql: wake lock %s held by another connection", q)
	}
	return id, nil
}

// probe checks through the pool that a release would find the bell: a
// connection of the pool that reaches another server (a proxy that
// spreads statements) does not see its named lock. The waiters of a deaf
// bell poll at their retry interval; it is reported once.
func (b *bell) probe(ctx context.Context, id int64) {
	var holder sql.NullInt64
	err := b.e.db.QueryRowContext(ctx, "SELECT IS_USED_LOCK("+quoteString(b.name)+")").Scan(&holder)
	deaf := err == nil && holder.Int64 != id
	b.mu.Lock()
	b.deaf = deaf
	warn := deaf && !b.warned
	b.warned = b.warned || deaf
	b.mu.Unlock()
	if warn {
		b.e.log.Warn("mysql: a connection of the pool does not see the wake connection's named lock: do the pool's connections reach more than one server (a proxy spreading statements)? Releases cannot wake this executor's waiters, which poll at their retry interval",
			"lock", b.name)
	}
}

// discard closes conn and keeps the pool from reusing it: it holds the
// bell's named lock and session settings.
func discard(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	_ = conn.Close()
}

// confirm records that the bell is up. The first time releases the
// callers waiting in wait; a later time follows a reconnect, after which
// wakes may have been missed, so it wakes every waiter.
func (b *bell) confirm() {
	b.mu.Lock()
	b.degraded = false
	gap := b.confirmed || b.late
	if !b.confirmed {
		b.confirmed = true
		close(b.ready)
	}
	b.mu.Unlock()
	if gap {
		b.e.waits.WakeAll()
	}
}

// setDegraded records that the bell is down.
func (b *bell) setDegraded() {
	b.mu.Lock()
	b.degraded = true
	b.mu.Unlock()
}
