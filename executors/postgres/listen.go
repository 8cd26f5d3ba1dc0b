package postgres

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lock4go/lock4go/internal/lifecycle"
)

// Timing of the LISTEN connection (variables for the tests).
var (
	// listenPing is how long the connection may stay silent before it is
	// pinged: a connection cut without a word (a partition) delivers no
	// notification and no error until a ping fails.
	listenPing = 5 * time.Second
	// listenIdle is how long the connection stays open without a waiter:
	// PostgreSQL wakes every listening backend of the database at each
	// NOTIFY, so a process that no longer waits stops listening.
	listenIdle = 30 * time.Second
)

const (
	// listenTimeout bounds connecting, LISTEN and a ping.
	listenTimeout = 5 * time.Second
	// probeTimeout is how long the notification the executor sends itself
	// after each LISTEN may take to arrive before it warns.
	probeTimeout = 2 * time.Second
	// listenApp is the application_name of the LISTEN connection, unless
	// its settings name one.
	listenApp = "lock4go listen"
)

// errIdle ends a LISTEN connection that no waiter used for listenIdle.
var errIdle = errors.New("postgres: LISTEN connection idle")

// listener keeps the executor's one LISTEN connection, opened at the first
// wait and kept until Close: the executor's wake channel, on which the
// releases that hand a key to it tell it. Its goroutine reconnects after
// an error and reports a gap (a notification may have been missed) when
// it listens again.
type listener struct {
	e   *Executor
	cfg *pgconn.Config

	mu        sync.Mutex
	started   bool
	confirmed bool          // LISTEN succeeded at least once
	ready     chan struct{} // closed at the first LISTEN
	degraded  bool          // not listening, or a confirmation is overdue: do not wait
	late      bool          // a caller stopped waiting for the first LISTEN
	probing   bool          // the probe notification has yet to arrive
	checked   bool          // the probe arrived once: notifications reach the connection
	deaf      bool          // the last probe never arrived: waiters must not count on wakes
	warned    bool          // a missed probe was reported
}

func newListener(e *Executor, cfg *pgconn.Config) *listener {
	l := &listener{e: e, cfg: cfg, ready: make(chan struct{})}
	cfg.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) { l.onNotification(n.Payload) }
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = listenApp
	}
	return l
}

// start starts the listener's goroutine on first use and reports whether
// this call started it. It does nothing once the executor is closed.
func (l *listener) start() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started {
		return false
	}
	if !l.e.core.Go(l.run) {
		return false
	}
	l.started = true
	return true
}

// wait waits until the first LISTEN succeeded, bounded by ctx and
// [Options.SubscribeTimeout], and not at all while the connection is known
// to be down. A caller that stops waiting makes the first LISTEN report a
// gap, since a notification may have slipped in before it.
func (l *listener) wait(ctx context.Context) {
	l.mu.Lock()
	if l.confirmed {
		l.mu.Unlock()
		return
	}
	if l.degraded {
		l.late = true
		l.mu.Unlock()
		return
	}
	ready := l.ready
	l.mu.Unlock()
	t := time.NewTimer(l.e.opts.SubscribeTimeout)
	defer t.Stop()
	select {
	case <-ready:
		return
	case <-l.e.core.Life().Done():
		return
	case <-ctx.Done():
	case <-t.C:
	}
	l.mu.Lock()
	if !l.confirmed {
		l.late, l.degraded = true, true
	}
	l.mu.Unlock()
}

// listening reports whether the executor listens now: notifications
// reach it, so a queued waiter can count on being woken. Not while the
// connection is down, nor after a probe went missing (a LISTEN through a
// transaction pooler succeeds, and hears nothing).
func (l *listener) listening() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.confirmed && !l.degraded && !l.deaf
}

// run connects, listens and reads notifications until the executor closes.
func (l *listener) run() {
	backoff := lifecycle.Backoff{Min: 50 * time.Millisecond, Max: 2 * time.Second}
	for l.e.core.Life().Err() == nil {
		conn, err := l.connect()
		if err != nil {
			l.setDegraded()
			if l.e.core.Life().Err() == nil {
				l.e.log.Debug("postgres: LISTEN connection failed; waiters poll until it is back", "err", err)
			}
			if !backoff.Wait(l.e.core.Life().Done()) {
				return
			}
			continue
		}
		backoff.Reset()
		l.confirm()
		err = l.serve(conn)
		closeQuietly(conn)
		if errors.Is(err, errIdle) {
			return
		}
		l.setDegraded()
		if l.e.core.Life().Err() == nil {
			l.e.log.Debug("postgres: LISTEN connection lost; reconnecting, waiters poll meanwhile", "err", err)
		}
	}
}

// connect opens the connection and listens on the wake channel.
func (l *listener) connect() (*pgconn.PgConn, error) {
	ctx, cancel := context.WithTimeout(l.e.core.Life(), listenTimeout)
	defer cancel()
	conn, err := pgconn.ConnectConfig(ctx, l.cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, `LISTEN "`+l.e.channel+`"`).ReadAll(); err != nil {
		closeQuietly(conn)
		return nil, err
	}
	return conn, nil
}

// serve reads notifications until the connection fails or the executor
// closes, pinging it when it has been silent for listenPing. First it sends
// the executor a notification through the pool, to check that they reach
// this connection.
func (l *listener) serve(conn *pgconn.PgConn) error {
	probeBy := l.sendProbe()
	var idleSince time.Time
	for {
		wait := listenPing
		if !probeBy.IsZero() {
			wait = min(wait, max(time.Until(probeBy), time.Millisecond))
		}
		ctx, cancel := context.WithTimeout(l.e.core.Life(), wait)
		err := conn.WaitForNotification(ctx)
		timedOut := ctx.Err() != nil
		cancel()
		switch {
		case l.e.core.Life().Err() != nil:
			return nil
		case err == nil:
			continue
		case !timedOut || conn.IsClosed():
			return err
		}
		if !probeBy.IsZero() && !time.Now().Before(probeBy) {
			l.probeMissed()
			probeBy = time.Time{}
			continue
		}
		if idleSince = l.idle(idleSince); idleSince.IsZero() {
			return errIdle
		}
		pctx, cancel := context.WithTimeout(l.e.core.Life(), listenTimeout)
		err = conn.Ping(pctx)
		cancel()
		if err != nil {
			return err
		}
	}
}

// idle returns since when the executor has had no waiter (now, if it has
// one now: a waiter resets it), or the zero time when it has had none for
// listenIdle: the listener then stops, and the next WatchRelease starts
// it again as the first.
func (l *listener) idle(since time.Time) time.Time {
	now := time.Now()
	switch {
	case l.e.waits.Active():
		return now
	case since.IsZero() || now.Sub(since) < listenIdle:
		if since.IsZero() {
			return now
		}
		return since
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.e.waits.Active() { // a waiter came: WatchRelease counts it before start
		return now
	}
	l.started, l.confirmed, l.degraded, l.late = false, false, false, false
	l.ready = make(chan struct{})
	return time.Time{}
}

// sendProbe sends the executor an empty notification through the pool and
// returns by when it should arrive (zero when a probe arrived already on an
// earlier connection, or could not be sent). A listener whose probe went
// missing probes each new connection until one arrives.
func (l *listener) sendProbe() time.Time {
	l.mu.Lock()
	if l.checked || l.probing {
		l.mu.Unlock()
		return time.Time{}
	}
	l.probing = true
	l.mu.Unlock()
	ctx, cancel := l.e.core.Cleanup()
	defer cancel()
	if _, err := l.e.pool.Exec(ctx, l.e.sql.notify, pgxExec, l.e.channel); err != nil {
		l.mu.Lock()
		l.probing = false
		l.mu.Unlock()
		return time.Time{}
	}
	return time.Now().Add(probeTimeout)
}

// probeMissed records that the probe never arrived, so that waiters poll
// at their retry interval instead of waiting for wakes, and warns once.
func (l *listener) probeMissed() {
	l.mu.Lock()
	missed := l.probing && !l.checked
	l.probing = false
	l.deaf = l.deaf || missed
	warn := missed && !l.warned
	l.warned = l.warned || missed
	l.mu.Unlock()
	if warn {
		l.e.log.Warn("postgres: a notification sent through the pool did not reach the LISTEN connection within "+probeTimeout.String()+
			"; waiters will poll at their retry interval. Is the LISTEN connection going through PgBouncer in transaction mode? Set Options.ListenDSN to a direct connection",
			"channel", l.e.channel)
	}
}

// onNotification handles a notification: the probe (an empty payload), or
// a wake.
func (l *listener) onNotification(payload string) {
	if payload == "" {
		l.mu.Lock()
		if l.probing {
			l.probing, l.deaf = false, false
			l.checked = true // no need to probe again
		}
		l.mu.Unlock()
		return
	}
	l.e.onWake(payload)
}

// confirm records a successful LISTEN. The first releases the callers
// waiting in wait; a later one follows a reconnect, after which
// notifications may have been missed, so it wakes every waiter.
func (l *listener) confirm() {
	l.mu.Lock()
	l.degraded = false
	gap := l.confirmed || l.late
	if !l.confirmed {
		l.confirmed = true
		close(l.ready)
	}
	l.mu.Unlock()
	if gap {
		l.e.waits.WakeAll()
	}
}

// setDegraded records that the executor is not listening.
func (l *listener) setDegraded() {
	l.mu.Lock()
	l.degraded = true
	l.mu.Unlock()
}

// closeQuietly closes conn, bounded by a short timeout.
func closeQuietly(conn *pgconn.PgConn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = conn.Close(ctx)
}
