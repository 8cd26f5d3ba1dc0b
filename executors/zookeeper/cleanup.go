package zookeeper

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/internal/lifecycle"
)

// Pauses between attempts to delete a node while the connection is down.
const (
	voidMinBackoff = 50 * time.Millisecond
	voidMaxBackoff = time.Second
)

// voidStepTimeout is how long a deletion step may wait for its replies on a
// connection that has its session before it is tried again: go-zookeeper
// waits for a lost reply until the connection drops, which on a live
// connection may be never. The stuck call's goroutine ends when the
// connection drops or closes.
const voidStepTimeout = time.Second

// remove deletes the node at path, created in session (0 if unknown), and
// returns the result of the first attempt: nil, zk.ErrNoNode when it was
// already gone, or another error, in which case the deletion goes on in the
// background until it succeeds, the session ends, the executor closes or the
// conn is closed. An abandoned node must never stay in a queue, where it
// would one day be granted the lock with nobody to release it.
func (e *Executor) remove(path string, session int64) error {
	err := e.conn.Delete(path, -1)
	if err == nil || errors.Is(err, zk.ErrNoNode) || sessionGone(e.conn, session) {
		return err
	}
	e.log.LogAttrs(context.Background(), slog.LevelDebug, "zookeeper: retrying node deletion in the background",
		slog.String("path", path), slog.Any("error", err))
	e.voidPath(path, session)
	return err
}

// voidPath deletes the node at path in the background.
func (e *Executor) voidPath(path string, session int64) {
	e.void(session, func() (bool, error) {
		err := e.conn.Delete(path, -1)
		return err == nil || errors.Is(err, zk.ErrNoNode), err
	})
}

// voidGUID deletes, in the background, every child of parent created with
// guid: the node of a create whose outcome is unknown. It ignores session
// changes, like [Executor.voidPending]: a create queued while disconnected
// is sent once the conn reconnects, in a new session if the old one
// expired, so the node may belong to a session that began after the create
// was issued. It stops once a search finds no such child (the create has
// returned, so none can appear later), when the executor closes, or when
// the conn is closed ([Executor.connClosed]).
func (e *Executor) voidGUID(parent, guid string) {
	e.void(0, func() (bool, error) {
		name, found, err := e.findGUID(parent, guid)
		if err != nil || !found {
			return err == nil, err
		}
		err = e.conn.Delete(parent+"/"+name, -1)
		// Deleted or not, search again: a late create may have left a twin.
		return false, err
	})
}

// voidPending deletes, in the background, the lock node of an attempt whose
// caller gave up while its ZooKeeper calls were in flight: every child of
// p's parent carrying p's GUID. It stops once a search finds none and no
// create of the attempt is in flight, or one is but its node was seen and
// deleted (a create makes at most one node, and the attempt issues no new
// create once abandoned). It ignores session changes: a create queued while
// disconnected may land in the next session.
func (e *Executor) voidPending(p *attemptState) {
	var deleted atomic.Bool // the node of the create in flight is gone
	e.void(0, func() (bool, error) {
		creating := p.isCreating() // before the search, which must follow the create
		name, found, err := e.findGUID(p.parent, p.guid)
		if err != nil {
			return false, err
		}
		if !found {
			return !creating || deleted.Load(), nil
		}
		err = e.conn.Delete(p.parent+"/"+name, -1)
		if err == nil || errors.Is(err, zk.ErrNoNode) {
			deleted.Store(true)
		}
		return false, err // search again
	})
}

// void retries step in a goroutine, with backoff, until it reports done,
// session (if not 0) ends, the executor closes or the conn is closed. A
// step still waiting for replies after voidStepTimeout on a connection with
// its session is abandoned (its reply was lost) and tried again.
func (e *Executor) void(session int64, step func() (done bool, err error)) {
	e.stats.voids.Add(1)
	e.stats.voiders.Add(1)
	if !e.bg.Go(func() { defer e.stats.voiders.Add(-1); e.voidLoop(session, step) }) {
		e.stats.voiders.Add(-1)
	}
}

// voidLoop is the body of [Executor.void].
func (e *Executor) voidLoop(session int64, step func() (done bool, err error)) {
	backoff := lifecycle.Backoff{Min: voidMinBackoff, Max: voidMaxBackoff}
	for {
		if !backoff.Wait(e.done) {
			return
		}
		if sessionGone(e.conn, session) {
			return
		}
		var (
			done bool // written by this round's step only
			serr error
		)
		err := e.doPatiently(func() { done, serr = step() })
		switch {
		case errors.Is(err, errClosed), err == nil && done:
			return
		case err == nil && e.connClosed(serr):
			// The session ends with the conn (or expires), and its
			// ephemeral nodes with it.
			e.log.LogAttrs(context.Background(), slog.LevelDebug,
				"zookeeper: conn closed, background node deletion stopped", slog.Any("error", serr))
			return
		}
	}
}

// How a closed conn is told from a dropped one: its state is looked at
// closedChecks times, closedInterval apart.
const (
	closedChecks   = 5
	closedInterval = 10 * time.Millisecond
)

// connClosed reports whether a background call failed with err because
// the conn was closed. A closed conn's SessionID does not change, so
// sessionGone cannot tell, and clean-ups would retry until the executor
// closes. go-zookeeper then fails every call with ErrConnectionClosed (or
// ErrClosing, for calls in flight) and stays in StateDisconnected for good.
// A dropped connection fails the calls in flight with ErrConnectionClosed
// too, but leaves StateDisconnected within microseconds to reconnect
// (StateConnecting), so the state must be seen StateDisconnected at every
// one of several looks over closedChecks*closedInterval. The executor
// closing counts as closed too.
func (e *Executor) connClosed(err error) bool {
	if !errors.Is(err, zk.ErrConnectionClosed) && !errors.Is(err, zk.ErrClosing) {
		return false
	}
	for i := range closedChecks {
		if i > 0 {
			select {
			case <-e.done:
				return true
			case <-time.After(closedInterval):
			}
		}
		if e.conn.State() != zk.StateDisconnected {
			return false
		}
	}
	return true
}

// errStuck reports a background call that got no reply in time on a
// connection that has its session.
var errStuck = errors.New("zookeeper: no reply on a live connection")

// doPatiently is [Executor.do] for steps of background deletions: it also
// returns errStuck when f has not returned after voidStepTimeout while the
// connection has its session. While the connection is down it waits on,
// since go-zookeeper fails or sends queued calls once it reconnects.
func (e *Executor) doPatiently(f func()) error {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	t := time.NewTicker(voidStepTimeout)
	defer t.Stop()
	for {
		select {
		case <-done:
			return nil
		case <-e.done:
			return errClosed
		case <-t.C:
			if e.conn.State() == zk.StateHasSession {
				e.stats.stuckSteps.Add(1)
				return errStuck
			}
		}
	}
}

// sessionGone reports whether session, if known (non-zero), is no longer
// conn's session: it expired or was closed, and took its ephemeral nodes
// with it.
func sessionGone(conn *zk.Conn, session int64) bool {
	return session != 0 && conn.SessionID() != session
}

// errAbandoned stops an attempt whose caller gave up: nobody will read its
// result, and it only cleans up.
var errAbandoned = errors.New("zookeeper: attempt abandoned by its caller")

// Phases of an attempt, as the clean-up of an abandoned Acquire sees them.
const (
	// phaseIdle: no lock node requested yet.
	phaseIdle = iota
	// phaseBusy: ZooKeeper calls in flight, and a lock node may exist.
	// go-zookeeper waits for a reply until the connection drops, so on a
	// live connection that lost a reply the attempt may never see ctx end.
	phaseBusy
	// phaseParked: waiting on a watch; the attempt wakes when ctx ends and
	// deletes its node itself.
	phaseParked
	// phaseRemoving: the attempt stopped and deletes its node itself. Its
	// delete either gets a reply or, when the connection drops, goes on in
	// the background; on a live connection that lost the reply, the delete
	// reached the server.
	phaseRemoving
	// phaseDone: the attempt returned, its node deleted or held by a lease.
	phaseDone
)

// attemptState is what an Acquire and its attempt goroutine share so that the
// attempt's lock node is deleted whichever of the two learns last that the
// caller gave up: a node left in the queue would one day be granted to
// nobody. It is safe for concurrent use.
//
// The rule: when Acquire gives up while the attempt is busy (a create or a
// queue read may be waiting for a reply that never comes), it schedules the
// deletion of whatever carries the attempt's GUID ([Executor.voidPending]);
// once abandoned, the attempt issues no new create, deletes a node whose
// create completes late, and parks no more.
type attemptState struct {
	parent string // the key's lock parent
	guid   string // the GUID in the attempt's node name
	name   string // the node's lock name: lockName, readName or writeName
	// askAlone makes the create ask whether its node is its parent's only
	// child (createNode): a lock's or read lock's, not a permit's lease.
	askAlone bool

	mu        sync.Mutex
	phase     int
	abandoned bool // the caller gave up
	creating  bool // a create call is in flight
}

// beginCreate marks a create call in flight. It reports false, and the
// create must not be issued, once the caller gave up.
func (p *attemptState) beginCreate() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.abandoned {
		return false
	}
	p.phase, p.creating = phaseBusy, true
	return true
}

// endCreate marks the create call returned and reports whether the caller
// gave up meanwhile.
func (p *attemptState) endCreate() (abandoned bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.creating = false
	return p.abandoned
}

// isCreating reports whether a create call is in flight.
func (p *attemptState) isCreating() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.creating
}

// isAbandoned reports whether the caller gave up.
func (p *attemptState) isAbandoned() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.abandoned
}

// park marks the attempt waiting on a watch. It reports false, and the
// attempt must not wait, once the caller gave up.
func (p *attemptState) park() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.abandoned {
		return false
	}
	p.phase = phaseParked
	return true
}

// unpark ends a wait: the attempt goes on queueing if goOn is set and the
// caller is still there, otherwise it deletes its node. It reports false,
// and the attempt must only delete its node, once the caller gave up.
func (p *attemptState) unpark(goOn bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if goOn && !p.abandoned {
		p.phase = phaseBusy
	} else {
		p.phase = phaseRemoving
	}
	return !p.abandoned
}

// removing marks the attempt stopped and deleting its node itself.
func (p *attemptState) removing() {
	p.mu.Lock()
	p.phase = phaseRemoving
	p.mu.Unlock()
}

// finish marks the attempt returned.
func (p *attemptState) finish() {
	p.mu.Lock()
	p.phase = phaseDone
	p.mu.Unlock()
}

// abandon marks the caller gone and reports whether the attempt is busy, in
// which case the caller must schedule [Executor.voidPending].
func (p *attemptState) abandon() (void bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.abandoned = true
	return p.phase == phaseBusy
}
