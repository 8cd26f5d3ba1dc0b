package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
)

// Lease states.
const (
	stateHeld int32 = iota
	stateReleased
	stateLost
	// stateUnwatched: lost because the executor closed while the lease was
	// held. Nothing watches its session any more, but its node may still
	// exist, and Release still deletes it.
	stateUnwatched
)

// errUnwatched is the loss cause of a lease still held when its executor
// closed.
var errUnwatched = fmt.Errorf("zookeeper: the lock was held when the executor closed, and Close deleted its node: %w", executor.ErrClosed)

// lease is one held lock: the lowest lock node under its key's parent. It is
// safe for concurrent use.
type lease struct {
	e       *Executor
	key     string
	path    string // the lock node
	token   int64  // the node's creation zxid
	session int64  // the session that owns the node
	start   time.Time

	state atomic.Int32
	// loss is marked, with the reason as its cause, when the lease is lost:
	// AfterLost, NotifyLost and LostCause read it.
	loss leases.Loss

	// watch delivers the next event on the node (deletion, session expiry);
	// the monitor polls it and owns it after registration.
	watch <-chan zk.Event
}

var (
	_ executor.Lease        = (*lease)(nil)
	_ executor.LostCauser   = (*lease)(nil)
	_ executor.LocalEnder   = (*lease)(nil)
	_ executor.LossNotifier = (*lease)(nil)
)

func newLease(e *Executor, key, path string, st *zk.Stat, watch <-chan zk.Event, start time.Time) *lease {
	return &lease{e: e, key: key, path: path, token: st.Czxid, session: st.EphemeralOwner, watch: watch, start: start}
}

// Token returns the lock node's creation zxid, which increases with every
// write to the ensemble, so across owners of a key.
func (l *lease) Token() int64 { return l.token }

// Start returns the grant: when the read that found the node first was
// sent, or, for a node its create found alone (grantAlone), when the
// create was sent. The node lives as long as its session, so a wait in the
// queue eats nothing of the lease.
func (l *lease) Start() time.Time { return l.start }

// LocalEnd implements [executor.LocalEnder]: the last time the lease's
// session was heard from (its grant, or a later answered heartbeat) plus
// [Options.SessionTimeout], less the safety margin. ZooKeeper cannot have
// expired the session, and so deleted the node, before then.
func (l *lease) LocalEnd() time.Time { return l.e.localEnd(l.session, l.start) }

// AfterLost implements [executor.Lease]: f runs when the lease is lost:
// its session expired, its node was deleted by someone else, the
// connection stayed down past [Options.DisconnectGrace], or the executor
// was closed (see [Executor.Close]). Each lease has its own signal, since
// a node can vanish alone.
func (l *lease) AfterLost(f func()) func() bool { return l.loss.After(f) }

// NotifyLost implements [executor.LossNotifier]: AfterLost for a listener,
// without allocating.
func (l *lease) NotifyLost(ln executor.LossListener) (uint64, bool) { return l.loss.Notify(ln) }

// StopNotify implements [executor.LossNotifier].
func (l *lease) StopNotify(id uint64) bool { return l.loss.Forget(id) }

// LostCause implements [executor.LostCauser]: why the lease was lost, nil
// while it is not.
func (l *lease) LostCause() error {
	return l.loss.Cause()
}

// Renew checks that the node still exists in the lease's session; ttl is
// ignored, since the session keeps the lease. Like Release it applies the
// session monitor's rule first: a lease whose connection has been without
// its session past [Options.DisconnectGrace] is lost.
func (l *lease) Renew(ctx context.Context, _ time.Duration) error {
	if l.state.Load() != stateHeld {
		return l.notHeld("renew")
	}
	if cause, void := l.e.mon.verdict(l.session, time.Time{}); cause != nil {
		l.lose(cause, void)
		return l.notHeld("renew")
	}
	if err := ctx.Err(); err != nil {
		return backendErr("renew", l.key, executor.ContextError(ctx))
	}
	var (
		ok  bool
		st  *zk.Stat
		err error
	)
	if cerr := l.e.call(ctx, func() { ok, st, err = l.e.conn.Exists(l.path) }); cerr != nil {
		return backendErr("renew", l.key, cerr)
	}
	if err != nil {
		return backendErr("renew", l.key, err)
	}
	if !ok || st.EphemeralOwner != l.session {
		l.lose(errors.New("lock node deleted"), false)
		return l.notHeld("renew")
	}
	return nil
}

// Release deletes the node. It reports [executor.ErrLockNotHeld] when the
// lease was already released or lost, when the node is gone, and when the
// session monitor's rule counts the lease lost: its session ended, or the
// connection has been without its session (seen by the monitor, or by the
// failed delete) longer than [Options.DisconnectGrace]; the error then wraps
// [executor.ErrLockLost] too (the lease was lost, not taken by another
// owner: a lease found lost earlier says so as well) and the cause, and if
// the session may live on the node is deleted in the
// background once reconnected. Otherwise, when the connection is down
// within the grace or ctx ends (even before the call), it reports
// [executor.ErrBackend] and keeps deleting the node in the background until
// it succeeds or the session ends. A lease lost because the executor closed
// is reported as lost too, but its node is deleted all the same.
func (l *lease) Release(ctx context.Context) error {
	if l.state.CompareAndSwap(stateUnwatched, stateReleased) {
		return l.releaseUnwatched(ctx)
	}
	if !l.state.CompareAndSwap(stateHeld, stateReleased) {
		return l.notHeld("release")
	}
	// Judge before the monitor forgets the lease (and, idle, the
	// connection's past).
	cause, void := l.e.mon.verdict(l.session, time.Time{})
	l.e.mon.remove(l)
	if cause != nil {
		if void {
			l.e.voidPath(l.path, l.session)
		}
		return l.lostAt("release", cause)
	}
	var err error
	if cerr := l.e.call(ctx, func() { err = l.e.remove(l.path, l.session) }); cerr != nil {
		// The delete goes on, and remove retries it in the background.
		if cause, _ := l.e.mon.verdict(l.session, time.Time{}); cause != nil {
			return l.lostAt("release", cause)
		}
		return backendErr("release", l.key, cerr)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, zk.ErrNoNode):
		return fmt.Errorf("zookeeper: release %q: lock node gone: %w", l.key, executor.ErrLockNotHeld)
	}
	var seenDown time.Time
	if connectionLost(err) {
		seenDown = time.Now()
	}
	// remove already retries the delete in the background unless the
	// session ended.
	if cause, _ := l.e.mon.verdict(l.session, seenDown); cause != nil {
		return fmt.Errorf("%w (delete: %w)", l.lostAt("release", cause), err)
	}
	return backendErr("release", l.key, err)
}

// releaseUnwatched is Release of a lease held when its executor closed: it
// deletes the node, which no background work retries any more, and reports
// [executor.ErrLockNotHeld]: nothing vouched for the lease after Close.
func (l *lease) releaseUnwatched(ctx context.Context) error {
	var err error
	if cerr := l.e.call(ctx, func() { err = l.e.remove(l.path, l.session) }); cerr != nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("zookeeper: release %q: %w: %w (delete: %w)", l.key, executor.ErrLockNotHeld, errUnwatched, err)
	}
	return fmt.Errorf("zookeeper: release %q: %w: %w", l.key, executor.ErrLockNotHeld, errUnwatched)
}

// notHeld is the error of op on a lease no longer held: it wraps
// [executor.ErrLockNotHeld] and, for a lost lease, [executor.ErrLockLost]
// and the cause of the loss (for one Close ended, the cause alone).
func (l *lease) notHeld(op string) error {
	switch l.state.Load() {
	case stateLost:
		return l.lostAt(op, l.loss.Cause())
	case stateUnwatched:
		return fmt.Errorf("zookeeper: %s %q: %w: %w", op, l.key, executor.ErrLockNotHeld, l.loss.Cause())
	}
	return fmt.Errorf("zookeeper: %s %q: %w", op, l.key, executor.ErrLockNotHeld)
}

// lostAt is the error of op on a lease found lost for cause (its session
// ended, or its connection has been without it past the grace): it wraps
// [executor.ErrLockNotHeld] and [executor.ErrLockLost], so that a caller
// tells a lock its session took from one another owner holds.
func (l *lease) lostAt(op string, cause error) error {
	return fmt.Errorf("zookeeper: %s %q: %w: %w: %w", op, l.key, executor.ErrLockNotHeld, executor.ErrLockLost, cause)
}

// connectionLost reports whether a call failed because the connection lost
// its session, for a while at least: it dropped, no server answered, the
// session expired or the conn was closed. go-zookeeper also returns the
// socket's own error for a request it could not write (a broken pipe once
// the server closed an expired session's connection).
func connectionLost(err error) bool {
	var op *net.OpError
	return errors.Is(err, zk.ErrConnectionClosed) || errors.Is(err, zk.ErrNoServer) ||
		errors.Is(err, zk.ErrSessionExpired) || errors.Is(err, zk.ErrClosing) ||
		errors.As(err, &op) || errors.Is(err, io.EOF)
}

// abandon releases a lease nobody received, deleting its node (in the
// background if the connection is down), also when the executor closed
// meanwhile.
func (l *lease) abandon() {
	if l.state.CompareAndSwap(stateHeld, stateReleased) || l.state.CompareAndSwap(stateUnwatched, stateReleased) {
		l.e.mon.remove(l)
		_ = l.e.remove(l.path, l.session)
	}
}

// lose marks a held lease lost for cause, closing Lost. With void set the
// node may still exist (the connection dropped but the session may live
// on), so it is deleted in the background.
func (l *lease) lose(cause error, void bool) {
	if !l.state.CompareAndSwap(stateHeld, stateLost) {
		return
	}
	l.e.mon.remove(l)
	l.e.log.LogAttrs(context.Background(), slog.LevelWarn, "zookeeper: lease lost",
		slog.String("key", l.key), slog.String("path", l.path), slog.Any("cause", cause))
	l.loss.Mark(cause)
	if void {
		l.e.voidPath(l.path, l.session)
	}
}

// unwatch marks a held lease lost because its executor closed: nothing
// watches its session or node any more. Close then deletes the node;
// Release deletes it again if that failed.
func (l *lease) unwatch() {
	if !l.state.CompareAndSwap(stateHeld, stateUnwatched) {
		return
	}
	l.e.log.LogAttrs(context.Background(), slog.LevelInfo, "zookeeper: executor closed while a lease was held; lease counted lost",
		slog.String("key", l.key), slog.String("path", l.path))
	l.loss.Mark(errUnwatched)
}
