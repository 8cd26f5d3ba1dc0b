package zookeeper

import (
	"time"

	"github.com/lock4go/lock4go/executor"
)

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
