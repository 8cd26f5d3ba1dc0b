package etcd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/internal/lifecycle"
)

// waitTurn waits until the own entry of create revision rev is the first
// member: it reads its blockers (pos, when the enqueue read them), watches
// only them (the predecessor's key,
// so a release wakes only the next waiter; the queue's range when several
// readers block a writer, so that one watch sees them all go), and reads
// again. With wait false it returns errBusy instead of waiting. ctx ending
// during a watch is returned as errWaitEnded; read errors are returned as
// they are.
func (e *Executor) waitTurn(ctx context.Context, q queue, own string, rev int64, ref leaseRef, wait, shared bool, pos *position) error {
	limit := int64(1)
	for {
		t, err := e.position(ctx, q, own, rev, shared, limit, pos)
		if err != nil {
			return err
		}
		pos = nil
		if t.pred() == nil {
			return nil
		}
		if !wait {
			return errBusy
		}
		if len(t.blockers) > 1 {
			limit = blockerPage // readers blocked a writer: read them again in one page
		}
		w := &blockWatch{e: e, q: q, t: t, own: own, rev: rev, shared: shared}
		err = w.wait(ctx, ref)
		switch {
		case err == nil:
		case errors.Is(err, errWatch):
			// Read the queue again after a short pause: the blockers may
			// be gone, or the watch may have been cut (no leader).
			select {
			case <-time.After(watchRetry):
			case <-ctx.Done():
				return errWaitEnded
			}
		default:
			return err
		}
	}
}

// position returns pos if the caller has one (the enqueue read it), and
// reads the own entry's blockers otherwise.
func (e *Executor) position(ctx context.Context, q queue, own string, rev int64, shared bool, limit int64, pos *position) (position, error) {
	if pos != nil {
		return *pos, nil
	}
	return e.blockers(ctx, q, own, rev, shared, limit)
}

// watchRetry is the pause before reading the queue again after a watch
// ended without a delete event.
const watchRetry = 50 * time.Millisecond

// errWaitEnded: the caller's context ended while waiting for the turn.
var errWaitEnded = errors.New("wait ended")

// renewWaiting renews the grant of a fixed lock that waits in its queue
// and sets timer to the next renewal.
func (e *Executor) renewWaiting(ctx context.Context, ref leaseRef, timer *time.Timer) error {
	if err := ref.grant.renew(ctx, e); err != nil {
		if ctx.Err() != nil {
			return errWaitEnded
		}
		return err
	}
	timer.Reset(ref.grant.renewIn())
	return nil
}

// blockWatch is one wait for the blockers of the own entry to go: one watch, on
// the predecessor's key when it is the only blocker (a release then wakes
// only the next waiter; the watch is shared by the process's waiters on
// that key, keywatch.go), on the queue's range when several readers block a
// writer (one watch sees them all go, instead of one watch per reader).
//
// The watch is opened without a start revision. A watch whose start is at
// or below the store's current revision is "unsynced" in etcd: its events
// wait for etcd's 100 ms catch-up loop. That is what gives
// concurrency.Mutex, which watches from the read revision, hand-off tails
// of up to 100 ms, and it also hits a watch from the read revision + 1
// whenever any write lands between the read and the watch. Without a start
// revision etcd starts the watch at its current revision + 1, which is
// synced unless a write races the registration inside etcd; under a steady
// write load that still happens now and then. So:
//
//   - the creation reply says at which revision the watch took over; when
//     that is after the read, the blockers are read again at once, so that
//     a delete in between is never missed;
//   - in a short queue (pollQueue keys at most), where the predecessor may
//     go within the first 100 ms while the watch may be unsynced, it is
//     also read at growing intervals (defaultPollAfter), a handful of reads
//     that bound the tail. In a longer queue a new entry waits longer than
//     that, and its watch is synced by the time it matters. Readers ahead
//     of a writer are not polled: under their churn each read waits behind
//     their writes, and the reads cost the writer more than they save.
//
// While it waits it keeps a fixed lock's grant alive, so a long queue
// cannot outlast a fixed-expire lease.
type blockWatch struct {
	e      *Executor
	q      queue
	t      position
	own    string
	rev    int64 // the own entry's create revision
	shared bool  // a read lock's wait

	left       map[string]bool // blockers not seen deleted yet, when watching the range
	sub        *keySub         // the predecessor's shared watch (keywatch.go), when it is the only blocker
	poll       *time.Timer     // the next backing read
	renewTimer *time.Timer     // the next renewal of a fixed lock's grant, or nil
	created    bool            // the watch's creation reply came
	polls      int             // backing reads scheduled so far
	started    time.Time       // when the watch was created
	gap        bool            // the watch started after the read: read again
}

// wait waits until the blockers are gone (or one of them is, for a single
// predecessor: the caller reads the queue again).
func (w *blockWatch) wait(ctx context.Context, ref leaseRef) error {
	w.poll = time.NewTimer(time.Hour)
	w.poll.Stop()
	defer w.poll.Stop()
	w.e.holdWatchStream(w.q.dir)
	var (
		wch      clientv3.WatchChan // the range's watch, or nil
		notified <-chan struct{}    // the predecessor's shared watch, or nil
	)
	if len(w.t.blockers) == 1 {
		w.sub = w.e.join(string(w.t.pred().Key))
		defer w.sub.leave()
		notified = w.sub.notify
	} else {
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		defer cancel()
		wch = w.open(wctx)
	}
	var renew <-chan time.Time
	if ref.grant != nil {
		w.renewTimer = time.NewTimer(ref.grant.renewIn())
		defer w.renewTimer.Stop()
		renew = w.renewTimer.C
	}
	for {
		var (
			done bool
			err  error
		)
		select {
		case wr, ok := <-wch:
			done, err = w.watched(ctx, wr, ok)
		case <-notified:
			done, err = w.noticed(ctx)
		case <-w.poll.C:
			done, err = w.read(ctx)
		case <-renew:
			err = w.e.renewWaiting(ctx, ref, w.renewTimer)
		case <-ctx.Done():
			return errWaitEnded
		case <-ref.gone():
			return errSessionLost
		case <-w.e.life.Done():
			return ErrClosed
		}
		if done || err != nil {
			return err
		}
	}
}

// open opens the watch of the queue's range, when several members block.
func (w *blockWatch) open(ctx context.Context) clientv3.WatchChan {
	w.track()
	return w.e.c.Watch(ctx, w.q.dir, clientv3.WithCreatedNotify(), clientv3.WithFilterPut(), clientv3.WithPrefix())
}

// noticed reads the predecessor's shared watch after a notification and
// reports whether the predecessor's entry is gone: deleted after the read
// of the queue. A watch that ended without that delete is errWatch (the
// caller reads the queue again).
func (w *blockWatch) noticed(ctx context.Context) (bool, error) {
	created, lastDelete, err := w.sub.state()
	switch {
	case lastDelete > w.t.at:
		return true, nil
	case err != nil && ctx.Err() != nil:
		return false, errWaitEnded
	case err != nil:
		return false, fmt.Errorf("%w: %w", errWatch, err)
	case created != 0 && !w.created:
		return false, w.onCreated(created)
	}
	return false, nil
}

// track records the blockers as not yet seen deleted.
func (w *blockWatch) track() {
	w.left = make(map[string]bool, len(w.t.blockers))
	for _, kv := range w.t.blockers {
		w.left[string(kv.Key)] = true
	}
}

// watched handles a reply of the range's watch (ok false: the channel
// closed) and reports whether the wait is over.
func (w *blockWatch) watched(ctx context.Context, wr clientv3.WatchResponse, ok bool) (bool, error) {
	switch {
	case !ok && ctx.Err() != nil:
		return false, errWaitEnded
	case !ok:
		return false, errWatch
	case wr.Err() != nil:
		return false, fmt.Errorf("%w: %w", errWatch, wr.Err())
	case wr.Created:
		return false, w.onCreated(wr.Header.Revision)
	}
	for _, ev := range wr.Events {
		// A delete at or before the read was of an earlier entry of the
		// same key.
		if ev.Type == mvccpb.DELETE && ev.Kv.ModRevision > w.t.at && w.left[string(ev.Kv.Key)] {
			delete(w.left, string(ev.Kv.Key))
		}
	}
	return w.left != nil && len(w.left) == 0, nil
}

// onCreated starts the backing reads once the watch exists at revision
// rev: one at once if the watch started after the read of the queue, else
// the configured ones while the blockers may go soon.
func (w *blockWatch) onCreated(rev int64) error {
	if w.created {
		return errWatch
	}
	w.created, w.started = true, time.Now()
	if rev > w.t.at {
		w.gap = true
		w.poll.Reset(0)
	} else if len(w.e.pollAfter) > 0 && w.polled() {
		w.poll.Reset(w.e.pollAfter[0])
		w.polls = 1
	}
	return nil
}

// polled reports whether the watch is backed by reads during its first
// 100 ms: in a short queue.
func (w *blockWatch) polled() bool {
	return w.t.size <= pollQueue
}

// read reads the blockers again and reports whether the wait is over; it
// schedules the next backing read.
func (w *blockWatch) read(ctx context.Context) (bool, error) {
	gone, err := w.readBlockers(ctx)
	switch {
	case ctx.Err() != nil:
		return false, errWaitEnded
	case err != nil && w.gap:
		return false, fmt.Errorf("%w: %w", errWatch, err) // read the queue again
	case err == nil && gone:
		return true, nil
	case err == nil:
		w.gap = false
	}
	if w.polls < len(w.e.pollAfter) && w.polled() {
		w.poll.Reset(time.Until(w.started.Add(w.e.pollAfter[w.polls])))
		w.polls++
	}
	return false, nil
}

// readBlockers reads the predecessor's key (it reports whether that entry
// is gone), or, when watching the range, the blockers (it reports whether
// none is left, and tracks those that are).
func (w *blockWatch) readBlockers(ctx context.Context) (bool, error) {
	if w.left == nil {
		pred := w.t.pred()
		resp, err := w.e.c.Get(ctx, string(pred.Key), clientv3.WithKeysOnly())
		if err != nil {
			return false, err
		}
		return len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != pred.CreateRevision, nil
	}
	t, err := w.e.blockers(ctx, w.q, w.own, w.rev, w.shared, blockerPage)
	if err != nil {
		return false, err
	}
	w.t = t
	w.track()
	return len(t.blockers) == 0, nil
}

// pollQueue is the longest queue (in keys) whose waiters back a new watch
// with reads.
const pollQueue = 4

// defaultPollAfter is when, after its creation, a watch that may still be
// unsynced is backed by a read of the blockers. etcd syncs a watch within
// 100 ms.
var defaultPollAfter = []time.Duration{3 * time.Millisecond, 10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond}

// streamHold keeps the client's watch stream open between waits.
//
// clientv3 authenticates again each time it opens a gRPC stream (its stream
// interceptor calls Authenticate, etcd issue 11954's fix), and it closes a
// watch stream when the last watch on it ends. With a user and password,
// each wait for a turn would open a stream and pay an Authenticate: a bcrypt
// check of the password on the server, ~90 ms on this project's machines,
// which made hand-offs with auth enabled ten times slower than without.
// One watch held open for the executor's lifetime keeps the stream, and
// every later watch (same metadata: WithRequireLeader) rides on it.
type streamHold struct {
	once sync.Once
}

// Bounds of the pause before the held watch is opened again after it ended
// (no leader, a refused permission, a broken connection).
const (
	holdRetryMin = 50 * time.Millisecond
	holdRetryMax = 5 * time.Second
)

// holdWatchStream opens the held watch, on key, the first time a wait needs
// a watch, when the client authenticates with a password; clients without
// one pay nothing. key is a key the caller may read (the exact queue
// directory "<pfx>/", where lock4go never writes).
func (e *Executor) holdWatchStream(key string) {
	if e.c.Username == "" || e.c.Password == "" {
		return
	}
	e.stream.once.Do(func() {
		// Opened here, before the caller's own watch, so that both share
		// the stream this opens.
		ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(e.life))
		wch := e.c.Watch(ctx, key)
		if !e.bg.Go(func() { e.keepWatchStream(key, wch, cancel) }) {
			cancel()
		}
	})
}

// keepWatchStream drains the held watch and opens it again whenever it
// ends, until the executor closes.
func (e *Executor) keepWatchStream(key string, wch clientv3.WatchChan, cancel context.CancelFunc) {
	backoff := lifecycle.Backoff{Min: holdRetryMin, Max: holdRetryMax}
	for {
		opened := time.Now()
		for range wch { // nothing is written at key; the channel closes when the watch ends
		}
		cancel()
		if time.Since(opened) > holdRetryMax {
			backoff.Reset()
		}
		if !backoff.Wait(e.life.Done()) {
			return
		}
		var ctx context.Context
		ctx, cancel = context.WithCancel(clientv3.WithRequireLeader(e.life))
		wch = e.c.Watch(ctx, key)
	}
}
