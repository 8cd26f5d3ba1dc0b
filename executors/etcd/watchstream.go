package etcd

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/internal/kit"
)

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
	backoff := kit.Backoff{Min: holdRetryMin, Max: holdRetryMax}
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
