package zookeeper

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/lifecycle"
)

// errClosed reports a call on a closed [Executor].
var errClosed = fmt.Errorf("zookeeper: %w", executor.ErrClosed)

// Executor locks keys with ephemeral sequential znodes, the ZooKeeper lock
// recipe in the layout of Curator's InterProcessMutex and go-zookeeper's
// zk.Lock. It is safe for concurrent use. Close it when done, before the
// conn (see [Executor.Close]): it runs background goroutines (one session
// monitor, and retried deletions).
type Executor struct {
	conn     *zk.Conn
	name     string
	priority int
	base     string
	acl      []zk.ACL
	grace    time.Duration
	// session is Options.SessionTimeout; heard is when the conn's session
	// was last heard from (heartbeat.go).
	session time.Duration
	heard   atomic.Pointer[heard]
	// writeName is the lock name of locks and write locks (lockName, or
	// writeName with Options.RWLockLayout).
	writeName string
	log       *slog.Logger
	// plainCreate is set once a lock parent refused the multi of a create
	// (see createNode).
	plainCreate atomic.Bool

	mon monitor

	mu     sync.Mutex // guards closed
	closed bool
	done   chan struct{}
	bg     lifecycle.Group // the monitor and background node deletions

	// stats count events for tests and benchmarks.
	stats struct {
		childrenReads atomic.Int64 // children listings while acquiring
		wakeups       atomic.Int64 // predecessor watches that fired
		voids         atomic.Int64 // deletions moved to the background
		voiders       atomic.Int64 // background deletions running now
		stuckSteps    atomic.Int64 // background deletion steps that got no reply on a live connection
		waiting       atomic.Int64 // queuers blocked on a predecessor watch now
	}
}

var (
	_ executor.Executor      = (*Executor)(nil)
	_ executor.Inspector     = (*Executor)(nil)
	_ executor.ForceReleaser = (*Executor)(nil)
)

// New returns an executor that locks through conn. It never dials and never
// closes conn: the caller owns it (see [Dial]). Leases live as long as
// conn's session; see [Options.DisconnectGrace] for how a dropped
// connection is treated.
func New(conn *zk.Conn, opts Options) (*Executor, error) {
	return build(conn, opts, defaultPollInterval)
}

// build is [New] with the session monitor's polling interval.
func build(conn *zk.Conn, opts Options, poll time.Duration) (*Executor, error) {
	if conn == nil {
		return nil, fmt.Errorf("zookeeper: nil *zk.Conn: %w", executor.ErrInvalidConfig)
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	e := &Executor{
		conn:      conn,
		name:      o.Name,
		priority:  o.Priority,
		base:      o.BasePath,
		acl:       o.ACL,
		grace:     o.DisconnectGrace,
		session:   o.SessionTimeout,
		writeName: lockName,
		log:       o.Logger,
		done:      make(chan struct{}),
	}
	if o.RWLockLayout {
		e.writeName = writeName
	}
	e.mon.init(e, poll)
	e.bg.Go(e.mon.run)
	return e, nil
}

// Name implements [executor.Executor].
func (e *Executor) Name() string { return e.name }

// Priority implements [executor.Executor].
func (e *Executor) Priority() int { return e.priority }

// Capabilities implements [executor.Executor]: the session's heartbeat
// keeps every lease, and the executor has read locks and semaphores (in the
// layouts of Curator's InterProcessReadWriteLock and
// InterProcessSemaphoreV2).
func (e *Executor) Capabilities() executor.Capabilities {
	return executor.Capabilities{SelfRenewing: true, Wait: executor.WaitInAcquire, QueueNext: true, SharedLocks: true, Semaphores: true}
}

// do runs f, ZooKeeper calls made by background work, in a goroutine of its
// own and waits for it, or returns errClosed when the executor closes
// first: go-zookeeper's calls take no context and may block for seconds
// while no server answers, and Close must not wait for them.
func (e *Executor) do(f func()) error {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
		return nil
	case <-e.done:
		return errClosed
	}
}

// call runs f, ZooKeeper calls, in a goroutine and waits for it or for
// ctx. It runs f even when ctx has already ended. When ctx ends first the
// goroutine finishes on its own and the caller must not read what f writes.
func (e *Executor) call(ctx context.Context, f func()) error {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return executor.ContextError(ctx)
	}
}

// isClosed reports whether Close was called.
func (e *Executor) isClosed() bool { return lifecycle.Closed(e.done) }

// backendErr wraps cause for operation op on key with [executor.ErrBackend].
func backendErr(op, key string, cause error) error {
	return fmt.Errorf("zookeeper: %s %q: %w: %w", op, key, executor.ErrBackend, cause)
}
