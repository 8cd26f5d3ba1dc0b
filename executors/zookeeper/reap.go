package zookeeper

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"
)

// Pauses between attempts to delete a node while the connection is down.
const (
	reapMinBackoff = 50 * time.Millisecond
	reapMaxBackoff = time.Second
)

// remove deletes the node at path, created in session (0 if unknown), and
// returns the result of the first attempt: nil, zk.ErrNoNode when it was
// already gone, or another error, in which case the deletion goes on in the
// background until it succeeds, the session ends or the executor closes. An
// abandoned node must never stay in a queue, where it would one day be
// granted the lock with nobody to release it.
func (e *Executor) remove(path string, session int64) error {
	err := e.conn.Delete(path, -1)
	if err == nil || errors.Is(err, zk.ErrNoNode) || sessionGone(e.conn, session) {
		return err
	}
	e.log.LogAttrs(context.Background(), slog.LevelDebug, "zookeeper: retrying node deletion in the background",
		slog.String("path", path), slog.Any("error", err))
	e.reapPath(path, session)
	return err
}

// reapPath deletes the node at path in the background.
func (e *Executor) reapPath(path string, session int64) {
	e.reap(session, func() (bool, error) {
		err := e.conn.Delete(path, -1)
		return err == nil || errors.Is(err, zk.ErrNoNode), err
	})
}

// reapGUID deletes, in the background, every child of parent created with
// guid: the node of a create whose outcome is unknown.
func (e *Executor) reapGUID(parent, guid string, session int64) {
	e.reap(session, func() (bool, error) {
		name, found, err := e.findGUID(parent, guid)
		if err != nil || !found {
			return err == nil, err
		}
		err = e.conn.Delete(parent+"/"+name, -1)
		// Deleted or not, search again: a late create may have left a twin.
		return false, err
	})
}

// reap retries step in a goroutine, with backoff, until it reports done,
// session ends or the executor closes.
func (e *Executor) reap(session int64, step func() (done bool, err error)) {
	e.stats.reaps.Add(1)
	e.spawn(func() {
		backoff := reapMinBackoff
		for {
			select {
			case <-e.done:
				return
			case <-time.After(backoff):
			}
			if sessionGone(e.conn, session) {
				return
			}
			var done bool
			if e.do(func() { done, _ = step() }) != nil || done {
				return
			}
			backoff = min(2*backoff, reapMaxBackoff)
		}
	})
}

// sessionGone reports whether session, if known (non-zero), is no longer
// conn's session: it expired or was closed, and took its ephemeral nodes
// with it.
func sessionGone(conn *zk.Conn, session int64) bool {
	return session != 0 && conn.SessionID() != session
}
