package lock4go_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fakeExec is an executor whose behaviour a test scripts. It records the
// time of every attempt.
type fakeExec struct {
	name     string
	prio     int
	acquireF func(ctx context.Context, req executor.Request) (executor.Lease, error)

	mu    sync.Mutex
	times []time.Time
	reqs  []executor.Request
}

func (f *fakeExec) Name() string  { return f.name }
func (f *fakeExec) Priority() int { return f.prio }
func (f *fakeExec) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	f.mu.Lock()
	f.times = append(f.times, time.Now())
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.acquireF == nil {
		return &fakeLease{token: 1}, nil
	}
	return f.acquireF(ctx, req)
}

func (f *fakeExec) attempts() []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.times...)
}

// fakeLease is a lease whose renewals and release a test scripts.
type fakeLease struct {
	token    int64
	start    time.Time // zero: granted when Start is first called
	renewF   func(ctx context.Context, ttl time.Duration) error
	releaseF func(ctx context.Context) error // nil: released at once
	lost     chan struct{}
	renews   atomic.Int64
	releases atomic.Int64
}

func (l *fakeLease) Token() int64 { return l.token }
func (l *fakeLease) Start() time.Time {
	if l.start.IsZero() {
		return time.Now()
	}
	return l.start
}
func (l *fakeLease) Renew(ctx context.Context, ttl time.Duration) error {
	l.renews.Add(1)
	if l.renewF != nil {
		return l.renewF(ctx, ttl)
	}
	return nil
}
func (l *fakeLease) Release(ctx context.Context) error {
	l.releases.Add(1)
	if l.releaseF != nil {
		return l.releaseF(ctx)
	}
	return nil
}
func (l *fakeLease) AfterLost(f func()) func() bool {
	if l.lost == nil {
		return executor.NeverLost
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-l.lost:
			cancel()
		case <-ctx.Done():
		}
	}()
	stop := context.AfterFunc(ctx, f)
	return func() bool { ok := stop(); cancel(); return ok }
}

// countingExec wraps an executor and counts Acquire calls and renewals.
type countingExec struct {
	executor.Executor
	acquires atomic.Int64
	renews   atomic.Int64
}

func (c *countingExec) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	c.acquires.Add(1)
	l, err := c.Executor.Acquire(ctx, req)
	if err != nil {
		return nil, err
	}
	return &countingLease{Lease: l, c: c}, nil
}

// WatchRelease passes the wrapped executor's notifications through.
func (c *countingExec) WatchRelease(ctx context.Context, key string) (<-chan struct{}, func()) {
	return c.Executor.(executor.Waiter).WatchRelease(ctx, key)
}

type countingLease struct {
	executor.Lease
	c *countingExec
}

func (l *countingLease) Renew(ctx context.Context, ttl time.Duration) error {
	l.c.renews.Add(1)
	return l.Lease.Renew(ctx, ttl)
}

// bubble runs f in a synctest bubble (fake clock) and then lets the
// Template's idle watchdog exit, as the bubble requires.
func bubble(t *testing.T, f func(t *testing.T)) {
	synctest.Test(t, func(t *testing.T) {
		f(t)
		time.Sleep(time.Second)
	})
}

func (f *fakeExec) Capabilities() executor.Capabilities { return executor.Capabilities{} }

// queuedNoWaiter says it waits queued but cannot tell of releases: New
// refuses it.
type queuedNoWaiter struct{ *fakeExec }

func (queuedNoWaiter) Capabilities() executor.Capabilities {
	return executor.Capabilities{Wait: executor.WaitQueued}
}

// polling presents the memory executor as one that never waits inside
// Acquire: a busy key is ErrNotAcquired at once, and waiters are woken by
// WatchRelease (as with Redis pub/sub), to test the Template's retry loop.
type polling struct{ *memory.Executor }

func (p polling) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	req.Wait = false
	return p.Executor.Acquire(ctx, req)
}

// Capabilities are the memory executor's, but it does not wait in Acquire:
// its waiting model is polling.
func (p polling) Capabilities() executor.Capabilities {
	c := p.Executor.Capabilities()
	c.Wait = executor.WaitPolling
	return c
}
