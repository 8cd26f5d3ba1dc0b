package redlock_test

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/executors/redlock"
	"github.com/lock4go/lock4go/internal/testwait"
)

func TestNew_invalid(t *testing.T) {
	a := addrs(t)
	c0, c1, c2 := newClient(t, a[0]), newClient(t, a[1]), newClient(t, a[2])
	ring := goredis.NewRing(&goredis.RingOptions{Addrs: map[string]string{"a": a[2]}})
	t.Cleanup(func() { _ = ring.Close() })
	for _, tc := range []struct {
		name    string
		clients []goredis.UniversalClient
		opts    redlock.Options
	}{
		{"two masters", []goredis.UniversalClient{c0, c1}, redlock.Options{}},
		{"nil client", []goredis.UniversalClient{c0, nil, c2}, redlock.Options{}},
		{"typed nil client", []goredis.UniversalClient{c0, c1, (*goredis.Client)(nil)}, redlock.Options{}},
		{"same client twice", []goredis.UniversalClient{c0, c1, c0}, redlock.Options{}},
		{"negative drift factor", []goredis.UniversalClient{c0, c1, c2}, redlock.Options{DriftFactor: -0.1}},
		{"drift factor of one half", []goredis.UniversalClient{c0, c1, c2}, redlock.Options{DriftFactor: 0.5}},
		{"negative minimum drift", []goredis.UniversalClient{c0, c1, c2}, redlock.Options{MinDrift: -time.Millisecond}},
		{"a ring", []goredis.UniversalClient{c0, c1, ring}, redlock.Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := redlock.New(tc.clients, tc.opts)
			if !errors.Is(err, executor.ErrInvalidConfig) {
				if e != nil {
					_ = e.Close()
				}
				t.Fatalf("New = %v, want ErrInvalidConfig", err)
			}
		})
	}
}

func TestAcquire_shortTTL(t *testing.T) {
	e := newExecutor(t, addrs(t), redlock.Options{MinDrift: 10 * time.Millisecond})
	_, err := e.Acquire(t.Context(), request(key(t), 10*time.Millisecond))
	if !errors.Is(err, executor.ErrInvalidConfig) {
		t.Fatalf("Acquire with a TTL below the drift = %v, want ErrInvalidConfig", err)
	}
}

func TestAcquire_minorityDown(t *testing.T) {
	ps := proxies(t, addrs(t))
	e := newExecutor(t, proxyAddrs(ps), redlock.Options{})
	_ = ps[2].Close() // refused from now on
	k := key(t)
	l, err := e.Acquire(ctxFor(t, 5*time.Second), request(k, 10*time.Second))
	if err != nil {
		t.Fatalf("Acquire with one of three masters down = %v", err)
	}
	if err := l.Renew(t.Context(), 10*time.Second); err != nil {
		t.Fatalf("Renew with one of three masters down = %v", err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatalf("Release with one of three masters down = %v", err)
	}
	for i, v := range holders(t, addrs(t), k) {
		if v != "" {
			t.Errorf("master %d still holds %q after the release", i, v)
		}
	}
}

func TestAcquire_majorityDown(t *testing.T) {
	a := addrs(t)
	ps := proxies(t, a)
	e := newExecutor(t, proxyAddrs(ps), redlock.Options{})
	_ = ps[1].Close()
	_ = ps[2].Close()
	k := key(t)
	_, err := e.Acquire(ctxFor(t, 5*time.Second), request(k, 10*time.Second))
	if !errors.Is(err, executor.ErrBackend) || errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("Acquire with two of three masters down = %v, want ErrBackend only", err)
	}
	if v := holders(t, a, k)[0]; v != "" {
		t.Fatalf("the master that answered still holds %q: a failed acquisition must release its grants", v)
	}
}

func TestAcquire_busy(t *testing.T) {
	a := addrs(t)
	e := newExecutor(t, a, redlock.Options{})
	other := newClient(t, a[0])
	k := key(t)
	// Held by someone else on one master: a majority is still free.
	if err := other.Set(t.Context(), k, "someone", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	l, err := e.Acquire(t.Context(), request(k, 10*time.Second))
	if err != nil {
		t.Fatalf("Acquire with the key held on one master = %v", err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatalf("Release = %v", err)
	}
	// Held on two masters: no majority.
	if err := newClient(t, a[1]).Set(t.Context(), k, "someone", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	_, err = e.Acquire(t.Context(), request(k, 10*time.Second))
	if !errors.Is(err, executor.ErrNotAcquired) || errors.Is(err, executor.ErrBackend) {
		t.Fatalf("Acquire with the key held on two masters = %v, want ErrNotAcquired", err)
	}
	if v := holders(t, a, k)[2]; v != "" {
		t.Fatalf("master 2 still holds %q: a failed acquisition must release its grants", v)
	}
}

// TestAcquire_returnsOnQuorum blackholes one master: the acquisition
// returns on the other two, long before the blackholed call's deadline, and
// the late master's call is finished in the background (voided when its
// deadline passes, since its reply never comes).
func TestAcquire_returnsOnQuorum(t *testing.T) {
	a := addrs(t)
	ps := proxies(t, a)
	e := newExecutor(t, proxyAddrs(ps), redlock.Options{})
	ps[0].SetBlackhole(true)
	k := key(t)
	const deadline = 20 * time.Second
	start := time.Now()
	l, err := e.Acquire(ctxFor(t, deadline), request(k, time.Minute))
	if err != nil {
		t.Fatalf("Acquire with one master blackholed = %v", err)
	}
	if d := time.Since(start); d > deadline/2 {
		t.Fatalf("Acquire took %v: it waited for the blackholed master", d)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatalf("Release = %v", err)
	}
	ps[0].SetBlackhole(false)
}

// TestAcquire_lateGrant pauses one master during an acquisition: the lease
// returns on the other two; when the master resumes, its grant joins the
// lease (released with it) or, if the lease was released meanwhile, is
// released at once.
func TestAcquire_lateGrant(t *testing.T) {
	a := addrs(t)
	e := newExecutor(t, a, redlock.Options{})
	for _, releaseFirst := range []bool{false, true} {
		k := key(t)
		req := request(k, time.Minute)
		if err := masters[2].Pause(); err != nil {
			t.Fatal(err)
		}
		l, err := e.Acquire(ctxFor(t, 20*time.Second), req)
		if err != nil {
			_ = masters[2].Resume()
			t.Fatalf("Acquire with one master paused = %v", err)
		}
		if releaseFirst {
			if err := l.Release(t.Context()); err != nil {
				t.Errorf("Release = %v", err)
			}
		}
		if err := masters[2].Resume(); err != nil {
			t.Fatal(err)
		}
		if !releaseFirst {
			testwait.For(t, 10*time.Second, "the late master to hold the lease's owner", func() bool {
				return holders(t, a[2:], k)[0] == req.Owner
			})
			if err := l.Release(t.Context()); err != nil {
				t.Errorf("Release = %v", err)
			}
		}
		awaitFree(t, a, k)
	}
}

// TestAcquire_lostReplies drops the replies of one master: the lock is
// taken on the others, and when that master's call reaches its deadline its
// Redis executor voids the owner there (once replies flow again), so the
// key is freed although the acquire command took effect.
func TestAcquire_lostReplies(t *testing.T) {
	a := addrs(t)
	ps := proxies(t, a)
	lost := make(chan struct{})
	var once sync.Once
	log := slog.New(&signalHandler{Handler: testLogger(t).Handler(), match: "reply was lost", f: func() { once.Do(func() { close(lost) }) }})
	e := newExecutor(t, proxyAddrs(ps), redlock.Options{Logger: log, Node: redis.Options{CleanupTimeout: 300 * time.Millisecond}})
	k := key(t)
	warm, err := e.Acquire(t.Context(), request(k, time.Minute)) // every master's connection is up
	if err != nil {
		t.Fatal(err)
	}
	if err := warm.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	awaitFree(t, a, k)
	ps[1].SetDropReplies(true)
	req := request(k, time.Minute)
	l, err := e.Acquire(ctxFor(t, time.Second), req)
	if err != nil {
		t.Fatalf("Acquire with one master's replies lost = %v", err)
	}
	if v := holders(t, a[1:2], k)[0]; v != req.Owner {
		t.Fatalf("master 1 holds %q: the acquire command should have taken effect there", v)
	}
	select {
	case <-lost: // master 1's call reached its deadline; its void is retried
	case <-time.After(20 * time.Second):
		t.Fatal("master 1's executor never reported the lost reply")
	}
	ps[1].SetDropReplies(false)
	ps[1].Cut() // connections whose replies were dropped are out of step
	testwait.For(t, 20*time.Second, "the grant whose reply was lost to be voided", func() bool {
		return holders(t, a[1:2], k)[0] == ""
	})
	if err := l.Release(t.Context()); err != nil {
		t.Fatalf("Release = %v", err)
	}
}

// TestFencing_overlappingMajorities makes the masters' counters disagree
// and takes the lock on masters 0 and 1 (master 2 blackholed), then on
// masters 1 and 2 (master 0, whose counter was ahead, blackholed): the
// second token must be above the first, which holds only because the first
// acquisition raised master 1's counter to its token.
func TestFencing_overlappingMajorities(t *testing.T) {
	a := addrs(t)
	ps := proxies(t, a)
	e := newExecutor(t, proxyAddrs(ps), redlock.Options{})
	k := key(t)
	first, err := e.Acquire(t.Context(), request(k, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	awaitFree(t, a, k)
	// Master 0 runs far ahead, as after acquisitions that missed the others.
	ahead := first.Token() + 1_000_000_000
	if err := single(t, a[0]).RaiseToken(t.Context(), k, ahead); err != nil {
		t.Fatal(err)
	}
	ps[2].SetBlackhole(true)
	x, err := e.Acquire(ctxFor(t, time.Second), request(k, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if x.Token() != ahead+1 {
		t.Fatalf("token %d, want the largest of the majority's tokens, %d", x.Token(), ahead+1)
	}
	if err := x.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Master 1's token was behind: its release left a floor at the token.
	if v := newClient(t, a[1]).Get(t.Context(), k).Val(); v != "lock4go:floor\x00"+strconv.FormatInt(x.Token(), 10) {
		t.Fatalf("master 1 after the release: %q, want a floor at %d", v, x.Token())
	}
	awaitFree(t, a[1:2], k)
	ps[2].SetBlackhole(false)
	ps[2].Cut()
	ps[0].SetBlackhole(true)
	defer ps[0].SetBlackhole(false)
	y, err := e.Acquire(ctxFor(t, time.Second), request(k, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = y.Release(t.Context()) }()
	if y.Token() <= x.Token() {
		t.Fatalf("token %d of masters 1 and 2 is not above the previous holder's %d", y.Token(), x.Token())
	}
}

// TestRenew_majority: a lease lost on one master is still renewed, and
// that master is asked for it again; lost on two, it is gone.
func TestRenew_majority(t *testing.T) {
	a := addrs(t)
	e := newExecutor(t, a, redlock.Options{})
	k := key(t)
	l, err := e.Acquire(t.Context(), request(k, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 5*time.Second, "every master to grant", func() bool {
		for _, v := range holders(t, a, k) {
			if v == "" {
				return false
			}
		}
		return true
	})
	// Lost on one master: still held.
	if err := newClient(t, a[0]).Del(t.Context(), k).Err(); err != nil {
		t.Fatal(err)
	}
	if err := l.Renew(t.Context(), time.Minute); err != nil {
		t.Fatalf("Renew with the lock lost on one master = %v", err)
	}
	errs := e.RenewBatch(t.Context(), []executor.RenewItem{{Lease: l, TTL: time.Minute}})
	if errs[0] != nil {
		t.Fatalf("RenewBatch with the lock lost on one master = %v", errs[0])
	}
	// A renewal that succeeded asks master 0 for the lock again.
	testwait.For(t, 10*time.Second, "master 0 to hold the lock again", func() bool {
		return holders(t, a[:1], k)[0] != ""
	})
	// Lost on two at once: gone, and the lease frees the master that
	// still held it (the Template will not release a lost lock).
	for _, addr := range a[:2] {
		if err := newClient(t, addr).Del(t.Context(), k).Err(); err != nil {
			t.Fatal(err)
		}
	}
	errs = e.RenewBatch(t.Context(), []executor.RenewItem{{Lease: l, TTL: time.Minute}})
	if !errors.Is(errs[0], executor.ErrLockNotHeld) {
		t.Fatalf("RenewBatch with the lock lost on two masters = %v, want ErrLockNotHeld", errs[0])
	}
	awaitFree(t, a, k)
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Release of a lost lock = %v, want ErrLockNotHeld", err)
	}
}

// single returns a Redis executor on the master at addr, closed at the end
// of the test.
func single(t testing.TB, addr string) *redis.Executor {
	t.Helper()
	e, err := redis.New(newClient(t, addr), redis.Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// signalHandler calls f for every record whose message contains match.
type signalHandler struct {
	slog.Handler
	match string
	f     func()
}

func (h *signalHandler) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.match) {
		h.f()
	}
	return h.Handler.Handle(ctx, r)
}

func (h *signalHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &signalHandler{Handler: h.Handler.WithAttrs(as), match: h.match, f: h.f}
}

func (h *signalHandler) WithGroup(name string) slog.Handler {
	return &signalHandler{Handler: h.Handler.WithGroup(name), match: h.match, f: h.f}
}

// awaitFree waits until no master at addrs holds key: a release returns on
// a majority, and the last master may still be at it.
func awaitFree(t testing.TB, addrs []string, key string) {
	t.Helper()
	testwait.For(t, 10*time.Second, "every master to be free", func() bool {
		for _, v := range holders(t, addrs, key) {
			// A floor (a token raised ahead of the clock) is free.
			if v != "" && v != "lock4go:floor" {
				return false
			}
		}
		return true
	})
}
