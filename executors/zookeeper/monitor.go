package zookeeper

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/lifecycle"
)

// defaultPollInterval is how often the monitor looks at the connection and
// the leases' node watches while leases are held.
const defaultPollInterval = 50 * time.Millisecond

// errSessionEnded is the loss cause when the connection's session is no
// longer the lease's.
var errSessionEnded = errors.New("zookeeper: session expired")

// monitor notices lost leases. One goroutine per executor, idle while no
// lease is held, polls every pollInterval:
//
//   - conn.SessionID(): once it differs from a lease's session, that session
//     expired (go-zookeeper moves to a new session) and its nodes are gone;
//   - conn.State(): while it is not StateHasSession the client cannot hear
//     of an expiry, so leases count as lost past [Options.DisconnectGrace];
//   - each lease's data watch on its own node, without blocking: it fires
//     when the node is deleted, or with ErrSessionExpired when go-zookeeper
//     learns the session expired.
//
// Every third of the session timeout it also sends a heartbeat request
// (heartbeat.go), whose answer moves the leases' local end.
//
// Polling needs neither the conn's event channel, which belongs to whoever
// dialled, nor a goroutine per lease.
type monitor struct {
	e        *Executor
	interval time.Duration
	wake     chan struct{}

	mu        sync.Mutex
	leases    map[*lease]struct{}
	downSince time.Time // when the connection was first seen without a session
	closed    bool      // the executor closed: no lease is watched any more
	beating   bool      // a heartbeat is in flight
	beatSent  time.Time // when the last heartbeat was sent
}

func (m *monitor) init(e *Executor, interval time.Duration) {
	m.e = e
	m.interval = interval
	m.wake = make(chan struct{}, 1)
	m.leases = map[*lease]struct{}{}
}

// add starts watching l. It reports false, and does not watch l, once the
// executor closed: l must not be handed out.
func (m *monitor) add(l *lease) bool {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return false
	}
	m.leases[l] = struct{}{}
	m.mu.Unlock()
	select {
	case m.wake <- struct{}{}:
	default:
	}
	return true
}

// close stops watching: it returns the leases still watched and forgets
// them, and add refuses leases from then on.
func (m *monitor) close() []*lease {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	ls := slices.Collect(maps.Keys(m.leases))
	clear(m.leases)
	return ls
}

// remove stops watching l.
func (m *monitor) remove(l *lease) {
	m.mu.Lock()
	delete(m.leases, l)
	m.mu.Unlock()
}

func (m *monitor) run() {
	ticker := time.NewTicker(m.interval)
	defer ticker.Stop()
	ticking := true
	for {
		if m.idle() {
			if ticking {
				ticker.Stop()
				ticking = false
			}
			select {
			case <-m.e.done:
				return
			case <-m.wake:
			}
			continue
		}
		if !ticking {
			ticker.Reset(m.interval)
			ticking = true
		}
		select {
		case <-m.e.done:
			return
		case <-ticker.C:
			m.check()
		}
	}
}

// idle reports whether no lease is held; it then forgets any past
// disconnection.
func (m *monitor) idle() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.leases) > 0 {
		return false
	}
	m.downSince = time.Time{}
	return true
}

// loss is a lease found lost, with its cause and whether its node may
// survive.
type loss struct {
	l     *lease
	cause error
	void  bool
}

// observeLocked records the connection state seen at now and returns since
// when the connection has been without its session: zero while it has it.
// m.mu must be held.
func (m *monitor) observeLocked(state zk.State, now time.Time) time.Time {
	if state == zk.StateHasSession {
		m.downSince = time.Time{}
	} else if m.downSince.IsZero() {
		m.downSince = now
	}
	return m.downSince
}

// pastGrace reports whether a connection without its session since since
// (zero: it has it) counts its leases lost at now: [Options.DisconnectGrace].
func (m *monitor) pastGrace(since, now time.Time) bool {
	return !since.IsZero() && m.e.grace >= 0 && now.Sub(since) >= m.e.grace
}

// downErr is the loss cause of a lease whose connection has been without
// its session since since.
func downErr(since, now time.Time) error {
	return fmt.Errorf("zookeeper: connection without its session for %v", now.Sub(since).Round(time.Millisecond))
}

// verdict applies the monitor's rule, now, to a lease of session, for Renew
// and Release, which must not vouch for a lease the monitor would count
// lost before its next poll. It returns nil while the lease stands,
// otherwise why it is lost and whether its node may survive (the session
// may live on, so the node is to be deleted once reconnected). seenDown, if
// not zero, is when the caller saw the connection without its session (a
// call failed for it) even if it has its session again.
func (m *monitor) verdict(session int64, seenDown time.Time) (cause error, void bool) {
	current, state, now := m.e.conn.SessionID(), m.e.conn.State(), time.Now()
	if session != current {
		return errSessionEnded, false
	}
	m.mu.Lock()
	since := m.observeLocked(state, now)
	m.mu.Unlock()
	if !seenDown.IsZero() && (since.IsZero() || seenDown.Before(since)) {
		since = seenDown
	}
	if m.pastGrace(since, now) {
		return downErr(since, now), true
	}
	return nil, false
}

// check looks once at the connection and every lease.
func (m *monitor) check() {
	session, state, now := m.e.conn.SessionID(), m.e.conn.State(), time.Now()
	var lost []loss
	var rearm []*lease
	m.mu.Lock()
	since := m.observeLocked(state, now)
	down := m.pastGrace(since, now)
	beat := m.heartbeatDue(now)
	if beat {
		m.beating, m.beatSent = true, now
	}
	for l := range m.leases {
		switch {
		case l.session != session:
			lost = append(lost, loss{l, errSessionEnded, false})
		case down:
			lost = append(lost, loss{l, downErr(since, now), true})
		default:
			if x, again := l.polled(); again {
				rearm = append(rearm, l)
			} else if x.l != nil {
				lost = append(lost, x)
			}
		}
	}
	m.mu.Unlock()
	if beat && !m.e.bg.Go(m.heartbeat) {
		m.mu.Lock()
		m.beating = false
		m.mu.Unlock()
	}
	for _, x := range lost {
		x.l.lose(x.cause, x.void)
	}
	for _, l := range rearm {
		m.e.bg.Go(func() { m.rearm(l) })
	}
}

// polled polls l's watch on its own node, without blocking: it returns the
// loss the watch reports (none: a zero loss), or again when someone wrote
// to the node, which ends the watch but not the lease, so it must be set
// again. The caller holds the monitor's mutex.
func (l *lease) polled() (x loss, again bool) {
	var ev zk.Event
	select {
	case ev = <-l.watch:
		l.watch = nil
	default:
		return loss{}, false
	}
	switch ev.Type {
	case zk.EventNodeDataChanged, zk.EventNodeCreated:
		return loss{}, true
	case zk.EventNodeDeleted:
		return loss{l, errors.New("zookeeper: lock node deleted"), false}, false
	}
	cause := ev.Err
	if cause == nil {
		cause = fmt.Errorf("zookeeper: watch ended (%v)", ev.Type)
	}
	// The watch ended with the session or the conn: the node may survive
	// only if the session does.
	return loss{l, cause, !errors.Is(cause, zk.ErrSessionExpired)}, false
}

// rearm sets a new watch on l's node after an event that did not end it.
func (m *monitor) rearm(l *lease) {
	var (
		ok  bool
		st  *zk.Stat
		w   <-chan zk.Event
		err error
	)
	if m.e.do(func() { ok, st, w, err = m.e.conn.ExistsW(l.path) }) != nil {
		return // closed
	}
	switch {
	case err != nil:
		l.lose(fmt.Errorf("zookeeper: rewatching lock node: %w", err), true)
	case !ok || st.EphemeralOwner != l.session:
		l.lose(errors.New("zookeeper: lock node deleted"), false)
	default:
		m.arm(l, w)
	}
}

// arm makes w the watch on l's node that the monitor polls.
func (m *monitor) arm(l *lease, w <-chan zk.Event) {
	m.mu.Lock()
	l.watch = w
	m.mu.Unlock()
}

// watchNew sets the first watch on the node of l, a lease granted without
// one (grantAlone). It reads the node with a data watch, which a node
// already gone does not leave behind (an exists watch would stay on the
// server for a path never created again). A node gone, or not the one
// granted, or an expired session is a lost lock. A read that failed with
// the connection is tried again while l is held: whether its session, and
// so its node, outlives the disconnection is the session monitor's verdict,
// as for every lease.
func (m *monitor) watchNew(l *lease) {
	backoff := lifecycle.Backoff{Min: 10 * time.Millisecond, Max: time.Second}
	for {
		var (
			st  *zk.Stat
			w   <-chan zk.Event
			err error
		)
		if m.e.do(func() { _, st, w, err = m.e.conn.GetW(l.path) }) != nil {
			return // closed
		}
		switch {
		case errors.Is(err, zk.ErrNoNode):
			l.lose(errors.New("zookeeper: lock node deleted"), false)
		case errors.Is(err, zk.ErrSessionExpired):
			l.lose(fmt.Errorf("zookeeper: watching lock node: %w", err), false)
		case err != nil:
			if l.state.Load() != stateHeld || !backoff.Wait(m.e.done) {
				return
			}
			continue
		case st.EphemeralOwner != l.session || st.Czxid != l.token:
			l.lose(fmt.Errorf("zookeeper: lock node %s is not the one granted (session %#x, zxid %d)", l.path, st.EphemeralOwner, st.Czxid), false)
		default:
			m.arm(l, w)
		}
		return
	}
}

// heard is when a session was last heard from: the send time of a request
// ZooKeeper answered in it. ZooKeeper renews a session with every request
// it receives, so it expires the session no earlier than that time plus
// the session timeout.
type heard struct {
	session int64
	at      time.Time
}

// hear records that session was heard from at at (a send time), unless a
// later time of that session is recorded already.
func (e *Executor) hear(session int64, at time.Time) {
	for {
		cur := e.heard.Load()
		if cur != nil && cur.session == session && !at.After(cur.at) {
			return
		}
		if e.heard.CompareAndSwap(cur, &heard{session: session, at: at}) {
			return
		}
	}
}

// heardAt returns when session was last heard from, at least since (a
// time it was heard from, such as a lease's grant).
func (e *Executor) heardAt(session int64, since time.Time) time.Time {
	if h := e.heard.Load(); h != nil && h.session == session && h.at.After(since) {
		return h.at
	}
	return since
}

// localEnd returns when a lease of session, granted at start, ends by the
// local clock: when the session was last heard from plus the session
// timeout, less the safety margin.
func (e *Executor) localEnd(session int64, start time.Time) time.Time {
	return e.heardAt(session, start).Add(e.session - executor.SafetyMargin(e.session))
}

// heartbeatDue reports whether the monitor should send a heartbeat at now:
// a third of the session timeout after the last one was sent.
func (m *monitor) heartbeatDue(now time.Time) bool {
	return !m.beating && now.Sub(m.beatSent) >= m.e.session/3
}

// heartbeat sends a sync of the base path, a request that renews the
// session and that the server passes to the ensemble's leader (a read
// would be answered by a follower cut off from the leader as well), and
// records the session heard from at the send time if the answer came in
// the session it was sent in. It runs in the background, one at a time.
func (m *monitor) heartbeat() {
	e := m.e
	session := e.conn.SessionID()
	sent := time.Now()
	var err error
	if e.do(func() { _, err = e.conn.Sync(e.base) }) == nil && err == nil &&
		session != 0 && e.conn.SessionID() == session {
		e.hear(session, sent)
	}
	m.mu.Lock()
	m.beating = false
	m.mu.Unlock()
}
