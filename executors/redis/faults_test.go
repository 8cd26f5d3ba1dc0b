package redis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testlog"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
)

// clientModes runs the fault tests with go-redis bounding calls by context
// deadlines and with the executor doing it.
var clientModes = []struct {
	name string
	opts []clientOpt
}{
	{"ContextTimeoutEnabled", []clientOpt{ctxTimeouts}},
	{"ContextTimeoutDisabled", nil},
}

func TestFault_restartWhileHeld(t *testing.T) {
	s := server(t)
	e := newExecutor(t, newClient(t, s.Addr(), ctxTimeouts), redis.Options{})
	key := uniq(t, "restart:")
	l, err := e.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	// No persistence: the lock is gone. The first call after the restart may
	// still see the broken connection; it must never succeed.
	var renewErr error
	if !testwait.Until(5*time.Second, func() bool {
		renewErr = l.Renew(t.Context(), time.Minute)
		if renewErr == nil {
			t.Fatal("Renew succeeded on a lock lost in a restart")
		}
		return errors.Is(renewErr, executor.ErrLockNotHeld)
	}) {
		t.Fatalf("Renew after restart = %v, want ErrLockNotHeld", renewErr)
	}
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Release after restart = %v, want ErrLockNotHeld", err)
	}
	// Tokens come from the clock: still increasing.
	l2, err := e.Acquire(t.Context(), req(key, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Release(context.WithoutCancel(t.Context()))
	if l2.Token() <= l.Token() {
		t.Fatalf("token after restart %d, want > %d", l2.Token(), l.Token())
	}
}

func TestFault_paused(t *testing.T) {
	for _, m := range clientModes {
		t.Run(m.name, func(t *testing.T) {
			s := server(t)
			c := newClient(t, s.Addr())
			e := newExecutor(t, newClient(t, s.Addr(), m.opts...), redis.Options{})
			held, err := e.Acquire(t.Context(), req(uniq(t, "held:"), time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Pause(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Resume() })

			key := uniq(t, "paused:")
			pausedCalls(t, e, held, key)

			// WatchRelease and stop never block on the network.
			start := time.Now()
			_, stop := e.WatchRelease(t.Context(), key)
			stop()
			if took := time.Since(start); took > time.Second {
				t.Fatalf("WatchRelease+stop on a paused server took %v", took)
			}

			if err := s.Resume(); err != nil {
				t.Fatal(err)
			}
			// The acquisition may have run once the server resumed; its
			// void must remove it long before its TTL.
			if !testwait.Until(5*time.Second, func() bool { return c.Exists(t.Context(), key).Val() == 0 }) {
				t.Fatal("orphan lock left by the timed-out acquisition")
			}
			if err := held.Renew(t.Context(), time.Minute); err != nil {
				t.Fatalf("Renew after resume = %v", err)
			}
			_ = held.Release(t.Context())
		})
	}
}

// pausedCalls checks that an Acquire of key through e and a Renew of held
// on a paused server end by their deadline with ErrBackend (and, for the
// Acquire, the context's error and cause, not ErrNotAcquired).
func pausedCalls(t *testing.T, e *redis.Executor, held executor.Lease, key string) {
	t.Helper()
	const deadline = 200 * time.Millisecond
	cause := errors.New("acquire timeout")
	ctx, cancel := context.WithTimeoutCause(t.Context(), deadline, cause)
	start := time.Now()
	_, err := e.Acquire(ctx, req(key, time.Minute))
	took := time.Since(start)
	cancel()
	// Redis did not answer in time: a backend failure, with the context's
	// error and cause, not a busy key.
	if !errors.Is(err, executor.ErrBackend) || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, cause) || errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("Acquire on a paused server = %v, want ErrBackend, DeadlineExceeded and the cause", err)
	}
	if took > deadline+300*time.Millisecond {
		t.Fatalf("Acquire on a paused server took %v, deadline %v", took, deadline)
	}
	ctx, cancel = context.WithTimeout(t.Context(), deadline)
	start = time.Now()
	err = held.Renew(ctx, time.Minute)
	took = time.Since(start)
	cancel()
	if !errors.Is(err, executor.ErrBackend) {
		t.Fatalf("Renew on a paused server = %v, want ErrBackend", err)
	}
	if took > deadline+300*time.Millisecond {
		t.Fatalf("Renew on a paused server took %v, deadline %v", took, deadline)
	}
}

func TestFault_proxy(t *testing.T) {
	for _, m := range clientModes {
		t.Run(m.name, func(t *testing.T) {
			s := server(t)
			p, err := testserver.NewProxy(s.Addr())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() }) // after the clients' cleanups
			e := newExecutor(t, newClient(t, p.Addr(), m.opts...), redis.Options{})
			l, err := e.Acquire(t.Context(), req(uniq(t, "cut:"), time.Minute))
			if err != nil {
				t.Fatal(err)
			}

			// A cut: go-redis finds the pooled connection closed when it
			// takes it (or reads EOF and retries), and uses a new one.
			p.Cut()
			if err := l.Renew(t.Context(), time.Minute); err != nil {
				t.Fatalf("Renew after a cut = %v, want success on a new connection", err)
			}

			partitioned(t, p, e, l)

			// Recovery.
			p.SetBlackhole(false)
			p.Cut()
			if !testwait.Until(5*time.Second, func() bool {
				err := l.Renew(t.Context(), time.Minute)
				return err == nil || errors.Is(err, executor.ErrLockNotHeld)
			}) {
				t.Fatal("no recovery after the partition")
			}
			l2, err := e.Acquire(t.Context(), req(uniq(t, "cut:"), time.Minute))
			if err != nil {
				t.Fatalf("Acquire after recovery = %v", err)
			}
			if err := l2.Release(t.Context()); err != nil {
				t.Fatalf("Release after recovery = %v", err)
			}
		})
	}
}

// partitioned checks that e's Acquire and l's Renew and Release through a
// partition (p blackholes) end with ErrBackend by their deadline.
func partitioned(t *testing.T, p *testserver.Proxy, e *redis.Executor, l executor.Lease) {
	t.Helper()
	p.SetBlackhole(true)
	p.Cut()
	const deadline = 300 * time.Millisecond
	for name, call := range map[string]func(ctx context.Context) error{
		"Acquire": func(ctx context.Context) error {
			_, err := e.Acquire(ctx, req(uniq(t, "cut:"), time.Minute))
			return err
		},
		"Renew":   func(ctx context.Context) error { return l.Renew(ctx, time.Minute) },
		"Release": func(ctx context.Context) error { return l.Release(ctx) },
	} {
		ctx, cancel := context.WithTimeout(t.Context(), deadline)
		start := time.Now()
		err := call(ctx)
		took := time.Since(start)
		cancel()
		if !errors.Is(err, executor.ErrBackend) {
			t.Fatalf("%s through a partition = %v, want ErrBackend", name, err)
		}
		if took > deadline+300*time.Millisecond {
			t.Fatalf("%s through a partition took %v, deadline %v", name, took, deadline)
		}
	}
}

// TestFault_lostReply loses the replies of an acquisition and of the first
// attempts of its void: the void is retried until it
// reaches Redis, removes the lock long before its TTL and voids the owner,
// so the same write landing later (a go-redis retry, a delayed packet)
// takes nothing.
func TestFault_lostReply(t *testing.T) {
	for _, m := range clientModes {
		t.Run(m.name, func(t *testing.T) {
			s := server(t)
			c := newClient(t, s.Addr())
			p, err := testserver.NewProxy(s.Addr())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() }) // after the clients' cleanups
			log, retrying := testlog.Signal(t, "retrying in the background")
			e := newExecutor(t, newClient(t, p.Addr(), m.opts...), redis.Options{Logger: log, CleanupTimeout: 500 * time.Millisecond})
			// Warm the connection and the script cache up.
			if l, err := e.Acquire(t.Context(), req(uniq(t, "warm:"), time.Minute)); err == nil {
				_ = l.Release(t.Context())
			}

			key := uniq(t, "lost:")
			r := req(key, time.Minute)
			p.SetDropReplies(true)
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			l, err := e.Acquire(ctx, r)
			cancel()
			if err == nil {
				t.Fatalf("Acquire without a reply returned a lease (token %d)", l.Token())
			}
			if !errors.Is(err, executor.ErrBackend) || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Acquire without a reply = %v, want ErrBackend and DeadlineExceeded", err)
			}
			voidAfterLostReply(t, c, p, e, r, retrying)
			takeOverVoided(t, newExecutor(t, newClient(t, s.Addr()), redis.Options{}), key)
			p.Cut()
		})
	}
}

// voidAfterLostReply checks what follows an acquisition r through e whose
// reply p dropped: the script ran, its void cannot be sure of its effect
// (retrying is signalled) until replies get through again, then it frees
// the key and leaves the owner's void marker, and the acquisition's write
// landing later takes the free key for nobody.
func voidAfterLostReply(t *testing.T, c *goredis.Client, p *testserver.Proxy, e *redis.Executor, r executor.Request, retrying <-chan struct{}) {
	t.Helper()
	key := r.Key
	// The script ran (the key holds the owner) ...
	if base, _, _ := redis.ParseValue(c.Get(t.Context(), key).Val()); base != r.Owner {
		t.Fatal("the acquire script never reached the server")
	}
	// ... and no attempt of its void can be sure of its
	// effect while replies are lost.
	select {
	case <-retrying:
	case <-time.After(10 * time.Second):
		t.Fatal("no failed void attempt reported while replies are lost")
	}
	p.SetDropReplies(false)
	// A retry reaches Redis, long before the TTL.
	if !testwait.Until(10*time.Second, func() bool {
		return c.Exists(t.Context(), key).Val() == 0 && c.Exists(t.Context(), redis.VoidKey(key, r.Owner)).Val() == 1
	}) {
		t.Fatalf("orphan lock left behind: GET = %q", c.Get(t.Context(), key).Val())
	}
	// The acquisition's write landing now takes the free key, for
	// nobody ...
	if _, err := e.Acquire(t.Context(), r); err != nil {
		t.Fatalf("the lost acquisition landing after its void = %v", err)
	}
	// ... until the next waiter's retry finds its void marker and
	// takes the key over.
}

// TestFault_cancelledPaused cancels an acquisition whose context has no
// deadline while the server is paused and the client waits without a read
// timeout: Acquire returns at the cancellation (go-redis notices only
// deadlines), reports a give-up rather than a backend failure, and leaves
// no lock once the server resumes.
func TestFault_cancelledPaused(t *testing.T) {
	for _, m := range clientModes {
		t.Run(m.name, func(t *testing.T) {
			s := server(t)
			c := newClient(t, s.Addr())
			noTimeout := func(o *goredis.Options) { o.ReadTimeout = -1 }
			e, err := redis.New(newClient(t, s.Addr(), append(m.opts, noTimeout)...), redis.Options{Logger: testLogger(t)})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = e.Close() })
			// Warm the connection and the script cache up.
			if l, err := e.Acquire(t.Context(), req(uniq(t, "warm:"), time.Minute)); err == nil {
				_ = l.Release(t.Context())
			}
			if err := s.Pause(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Resume() })

			r := req(uniq(t, "cancelled:"), time.Minute)
			cancelledAcquire(t, e, r)

			if err := s.Resume(); err != nil {
				t.Fatal(err)
			}
			// The void reaches Redis once it resumes; Close then
			// waits for the abandoned call, so the acquisition's script has
			// run too, before or after the void: no lock either way.
			if !testwait.Until(10*time.Second, func() bool { return c.Exists(t.Context(), redis.VoidKey(r.Key, r.Owner)).Val() == 1 }) {
				t.Fatal("the cancelled acquisition was not voided")
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if c.Exists(t.Context(), r.Key).Val() != 0 {
				t.Fatal("lock left by the cancelled acquisition")
			}
		})
	}
}

// cancelledAcquire checks that the Acquire r through e, on a paused
// server, whose context is cancelled after 100 ms returns soon with
// ErrNotAcquired, Canceled and the cause (not ErrBackend).
func cancelledAcquire(t *testing.T, e *redis.Executor, r executor.Request) {
	t.Helper()
	cause := errors.New("caller went away")
	ctx, cancel := context.WithCancelCause(t.Context())
	timer := time.AfterFunc(100*time.Millisecond, func() { cancel(cause) })
	defer timer.Stop()
	start := time.Now()
	_, err := e.Acquire(ctx, r)
	took := time.Since(start)
	if !errors.Is(err, executor.ErrNotAcquired) || !errors.Is(err, context.Canceled) || !errors.Is(err, cause) || errors.Is(err, executor.ErrBackend) {
		t.Fatalf("cancelled Acquire on a paused server = %v, want ErrNotAcquired, Canceled and the cause, not ErrBackend", err)
	}
	if took > 2*time.Second {
		t.Fatalf("cancelled Acquire on a paused server took %v", took)
	}
}

// takeOverVoided checks that a waiter of e takes key, held by a voided
// acquisition, at a retry that asks the server (at least once a second): it
// finds the holder's void marker.
func takeOverVoided(t *testing.T, e *redis.Executor, key string) {
	t.Helper()
	_, stop := e.WatchRelease(t.Context(), key)
	defer stop()
	var l executor.Lease
	var err error
	if !testwait.Until(5*time.Second, func() bool {
		w := req(key, time.Minute)
		w.Wait = true
		l, err = e.Acquire(t.Context(), w)
		return err == nil
	}) {
		t.Fatalf("retries on a key held by a voided acquisition = %v, want the lease", err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
}
