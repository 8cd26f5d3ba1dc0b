package etcd

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// keyWatches shares one etcd watch of a key among the executor's waits for
// that key's entry to go: the readers of a process queued behind one
// writer all wait for the writer's entry. Every watch of a client rides
// one watch stream, on which clientv3 creates watches one at a time, each
// waiting for etcd's reply: with a watch per reader, 64 readers woken
// behind a writer queued 64 creations, and the next writer's own watch
// waited behind them (40-150 ms in a trace of BenchmarkReadersWriter/etcd).
// Now the first waiter opens the key's watch, the others join it, and the
// last to leave closes it.
//
// A waiter reads the watch's state when notified: the revision at which
// the watch was created, its latest delete of the key, and its end. So a
// waiter that joins late still sees a delete between its read of the queue
// and its joining, and none is lost to a full channel. It is safe for
// concurrent use.
type keyWatches struct {
	mu sync.Mutex
	m  map[string]*keyWatch
}

// keyWatch is one shared watch of a key. Its fields are guarded by the
// keyWatches' mutex.
type keyWatch struct {
	subs       map[*keySub]struct{}
	created    int64 // the revision the watch was created at, 0 before
	lastDelete int64 // the revision of its latest delete of the key, 0 before
	err        error // why it ended, nil while it runs
	cancel     context.CancelFunc
}

// keySub is one waiter on a shared key watch: notify receives a value
// whenever the watch's state changed since the waiter last read it.
type keySub struct {
	ks     *keyWatches
	key    string
	w      *keyWatch
	notify chan struct{}
}

// errKeyWatchClosed ends a shared watch when the executor closes.
var errKeyWatchClosed = errors.New("etcd: executor closed")

// join joins the watch of key, opening it if nobody watches key yet. The
// waiter must leave once.
func (e *Executor) join(key string) *keySub {
	ks := &e.keyWatches
	s := &keySub{ks: ks, key: key, notify: make(chan struct{}, 1)}
	ks.mu.Lock()
	defer ks.mu.Unlock()
	w := ks.m[key]
	if w == nil {
		w = e.openKeyWatch(key)
	}
	s.w = w
	w.subs[s] = struct{}{}
	if w.created != 0 || w.err != nil {
		s.notify <- struct{}{}
	}
	return s
}

// openKeyWatch opens the shared watch of key, on the executor's lifetime,
// not a waiter's context. The caller holds the keyWatches' mutex.
func (e *Executor) openKeyWatch(key string) *keyWatch {
	ks := &e.keyWatches
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(e.life))
	w := &keyWatch{subs: map[*keySub]struct{}{}, cancel: cancel}
	if ks.m == nil {
		ks.m = map[string]*keyWatch{}
	}
	ks.m[key] = w
	wch := e.c.Watch(ctx, key, clientv3.WithCreatedNotify(), clientv3.WithFilterPut())
	if !e.bg.Go(func() { ks.forward(key, w, wch) }) {
		ks.endLocked(key, w, errKeyWatchClosed)
	}
	return w
}

// forward records each reply of the watch w of key and notifies its
// waiters, until the watch ends.
func (ks *keyWatches) forward(key string, w *keyWatch, wch clientv3.WatchChan) {
	for r := range wch {
		ks.mu.Lock()
		switch {
		case r.Err() != nil:
			ks.endLocked(key, w, r.Err())
		case r.Created:
			w.created = r.Header.Revision
		}
		for _, ev := range r.Events {
			if ev.Type == mvccpb.DELETE && ev.Kv.ModRevision > w.lastDelete {
				w.lastDelete = ev.Kv.ModRevision
			}
		}
		w.notifyLocked()
		ks.mu.Unlock()
	}
	ks.mu.Lock()
	ks.endLocked(key, w, errors.New("etcd: watch closed"))
	ks.mu.Unlock()
}

// endLocked ends the watch w of key with err, once: a waiter that joins
// key later opens a new one. The caller holds ks.mu.
func (ks *keyWatches) endLocked(key string, w *keyWatch, err error) {
	if w.err != nil {
		return
	}
	w.err = err
	if ks.m[key] == w {
		delete(ks.m, key)
	}
	w.cancel()
	w.notifyLocked()
}

func (w *keyWatch) notifyLocked() {
	for s := range w.subs {
		select {
		case s.notify <- struct{}{}:
		default:
		}
	}
}

// state returns what the watch saw: the revision it was created at (0
// before), its latest delete of the key (0 before) and why it ended (nil
// while it runs).
func (s *keySub) state() (created, lastDelete int64, err error) {
	s.ks.mu.Lock()
	defer s.ks.mu.Unlock()
	return s.w.created, s.w.lastDelete, s.w.err
}

// leave takes the waiter off the watch, and closes the watch with its
// last waiter.
func (s *keySub) leave() {
	ks := s.ks
	ks.mu.Lock()
	defer ks.mu.Unlock()
	delete(s.w.subs, s)
	if len(s.w.subs) == 0 {
		ks.endLocked(s.key, s.w, fmt.Errorf("etcd: no waiter on %q", s.key))
	}
}
