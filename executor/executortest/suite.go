package executortest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// Factory returns a fresh executor. Each call should use its own client or
// session, so that executors from different calls behave like different
// processes. The factory registers its own cleanup with t.Cleanup, which
// may close an executor the suite closed already. The executor must have
// a method Close() error, which the case "Close" calls.
type Factory func(t *testing.T) executor.Executor

// Options describe the executor under test. The zero value suits an
// executor whose leases expire by TTL, such as Redis or the memory executor.
type Options struct {
	// ShortTTL is the lease used by the expiry and renewal tests. Zero means
	// 300ms. Backends with coarse leases (etcd counts whole seconds) need more.
	ShortTTL time.Duration

	// NoExpiry marks executors whose leases do not end by TTL but with a
	// session (ZooKeeper); the expiry tests are skipped for them.
	NoExpiry bool

	// Settle is how long the backend may take to make a release or expiry
	// visible to other clients (asynchronous deletes). Zero means 2s; it is
	// an upper bound waited by polling, not a sleep.
	Settle time.Duration

	// KeyPrefix starts every key the suite locks, followed by ":", so that
	// the suite can run as a user allowed only some keys. Zero means
	// "lock4go-conformance".
	KeyPrefix string

	// Unordered marks executors that wake every waiter of a key at a
	// release instead of the longest waiting one; the arrival-order test is
	// skipped for them.
	Unordered bool

	// PermitsUnchecked marks executors that cannot tell the size of a
	// semaphore in use (ZooKeeper in Curator's layout stores none): the
	// permits test does not ask them to refuse a request with another size.
	PermitsUnchecked bool

	// SharedTokensUnkept marks executors that do not keep the fencing
	// tokens of read locks and permits on the backend (Redis): Inspect
	// reports them as 0, and the inspect test does not compare them.
	SharedTokensUnkept bool
}

func (o Options) withDefaults() Options {
	if o.ShortTTL == 0 {
		o.ShortTTL = 300 * time.Millisecond
	}
	if o.Settle == 0 {
		o.Settle = 2 * time.Second
	}
	if o.KeyPrefix == "" {
		o.KeyPrefix = "lock4go-conformance"
	}
	return o
}

// Run runs the whole conformance suite as subtests of t.
func Run(t *testing.T, f Factory, o Options) {
	o = o.withDefaults()
	s := &suite{f: f, o: o}
	tests := []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"AcquireRelease", s.testAcquireRelease},
		{"InvalidRequest", s.testInvalidRequest},
		{"HeldBySomeoneElse", s.testHeld},
		{"OwnerOnlyRelease", s.testOwnerOnlyRelease},
		{"DoubleRelease", s.testDoubleRelease},
		{"ExpiryFreesKey", s.testExpiry},
		{"RenewalKeepsKey", s.testRenewal},
		{"LocalEnd", s.testLocalEnd},
		{"TokensIncrease", s.testTokens},
		{"WakeUp", s.testWakeUp},
		{"FIFOAcrossExecutors", s.testFIFO},
		{"DepartedWaiter", s.testDepartedWaiter},
		{"CancelWhileWaiting", s.testCancelWhileWaiting},
		{"WaitUntil", s.testWaitUntil},
		{"FixedLeaseAfterWait", s.testFixedLeaseAfterWait},
		{"CancelledBeforeAcquire", s.testCancelledBefore},
		{"DeadlineCause", s.testDeadlineCause},
		{"ConcurrentKeys", s.testConcurrentKeys},
		{"MutualExclusion", s.testMutualExclusion},
		{"ForceRelease", s.testForceRelease},
		{"Inspect", s.testInspect},
		{"ReadersShare", s.testReadersShare},
		{"WriterPreference", s.testWriterPreference},
		{"Permits", s.testPermits},
		{"SharedExpiry", s.testSharedExpiry},
		{"SharedCancelledWaiter", s.testSharedCancelledWaiter},
		{"PermitCancelledWaiter", s.testPermitCancelledWaiter},
		{"ReleaseAfter", s.testReleaseAfter},
		{"Close", s.testClose},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.fn)
	}
}

type suite struct {
	f Factory
	o Options
}

// key returns a key unique to this test run, so runs sharing a server never
// collide.
func (s *suite) key(t *testing.T) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return s.o.KeyPrefix + ":" + t.Name() + ":" + hex.EncodeToString(b[:])
}

// owner returns a fresh owner value.
func owner() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *suite) req(k string, ttl time.Duration, wait bool) executor.Request {
	if ttl == 0 {
		ttl = 30 * time.Second
	}
	return executor.Request{Key: k, Owner: owner(), TTL: ttl, Wait: wait}
}

// mustAcquire acquires k with one attempt and fails the test otherwise.
func mustAcquire(t *testing.T, e executor.Executor, r executor.Request) executor.Lease {
	t.Helper()
	l, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatalf("Acquire(%q) = %v, want a lease", r.Key, err)
	}
	if l == nil {
		t.Fatalf("Acquire(%q) returned a nil lease and no error", r.Key)
	}
	return l
}

// mustNotAcquire checks that one attempt on k reports ErrNotAcquired.
func mustNotAcquire(t *testing.T, e executor.Executor, r executor.Request) {
	t.Helper()
	l, err := e.Acquire(t.Context(), r)
	if err == nil {
		_ = l.Release(context.WithoutCancel(t.Context()))
		t.Fatalf("Acquire(%q) succeeded while another owner holds it", r.Key)
	}
	if !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("Acquire(%q) = %v, want ErrNotAcquired", r.Key, err)
	}
}

// tryOnce makes one non-waiting attempt and releases at once on success.
func tryOnce(t *testing.T, e executor.Executor, k string) bool {
	l, err := e.Acquire(t.Context(), executor.Request{Key: k, Owner: owner(), TTL: 30 * time.Second})
	if err != nil {
		return false
	}
	if err := l.Release(t.Context()); err != nil {
		t.Errorf("Release after probe: %v", err)
	}
	return true
}

// acquireBlocking waits for k the way the Template does: a queue wait where
// the executor offers one, release notifications where it offers them
// (watched after the first attempt, which may queue the executor, and kept
// until the end), and short polling otherwise.
// acquired is the outcome of an acquisition started by acquireAsync.
type acquired struct {
	l   executor.Lease
	err error
}

// acquireAsync runs acquireBlocking in a goroutine of its own and delivers
// its outcome on the channel it returns.
func acquireAsync(ctx context.Context, e executor.Executor, r executor.Request) <-chan acquired {
	ch := make(chan acquired, 1)
	go func() {
		l, err := acquireBlocking(ctx, e, r)
		ch <- acquired{l, err}
	}()
	return ch
}

// await returns the lease of an acquisition of acquireAsync; it fails t,
// saying what was awaited, when the acquisition fails or ctx ends first.
func await(ctx context.Context, t *testing.T, ch <-chan acquired, what string) executor.Lease {
	t.Helper()
	select {
	case a := <-ch:
		if a.err != nil {
			t.Fatalf("%s: %v", what, a.err)
		}
		return a.l
	case <-ctx.Done():
		t.Fatalf("%s: not granted: %v", what, ctx.Err())
	}
	return nil
}

func acquireBlocking(ctx context.Context, e executor.Executor, r executor.Request) (executor.Lease, error) {
	r.Wait = true
	w, _ := e.(executor.Waiter)
	var released <-chan struct{}
	stop := func() {}
	defer func() { stop() }()
	for first := true; ; first = false {
		if !first {
			// A failed attempt may still be cleaned up in the background
			// by its owner value (a quorum executor releasing a late
			// grant): every attempt gets its own, as the Template does.
			r.Owner = owner()
		}
		l, err := e.Acquire(ctx, r)
		if err == nil || !errors.Is(err, executor.ErrNotAcquired) || ctx.Err() != nil {
			return l, err
		}
		if w != nil && released == nil {
			released, stop = w.WatchRelease(ctx, r.Key)
			if e.Capabilities().Wait != executor.WaitQueued {
				continue // a release before the watch would be missed
			}
		}
		select {
		case <-released:
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
		}
	}
}

// Lost returns a channel closed when l reports itself lost through
// [executor.Lease.AfterLost], for tests that select on a lease's loss.
func Lost(l executor.Lease) <-chan struct{} {
	ch := make(chan struct{})
	l.AfterLost(func() { close(ch) })
	return ch
}

// IsLost reports whether l has already reported itself lost: the stop of
// an [executor.Lease.AfterLost] registered now finds its function started.
func IsLost(l executor.Lease) bool { return !l.AfterLost(func() {})() }
