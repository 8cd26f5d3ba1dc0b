package etcd_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
)

// A lock on "k" and one on "k/sub" share the range "k/": neither may block
// or be confused with the other, in either order, waiting or not, even
// when a page of the range holds nothing but the longer key's entries.
func TestExecutor_Acquire_nestedKeys(t *testing.T) {
	testserver.Check(t, srvErr)
	a := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	b := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	tests := []struct {
		name   string
		longer int // locks on "k/sub<i>" taken before "k"
		req    func(k string) executor.Request
	}{
		{"try fixed", 1, func(k string) executor.Request { return fixed(k, 10*time.Second, false) }},
		{"try watchdog", 1, func(k string) executor.Request { return watchdog(k, false) }},
		{"wait watchdog", 1, func(k string) executor.Request { return watchdog(k, true) }},
		{"wait after 70 longer keys", 70, func(k string) executor.Request { return watchdog(k, true) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := uniqueKey(t)
			for i := range tc.longer {
				l := mustAcquire(t, a, fixed(fmt.Sprintf("%s/sub%d", k, i), 30*time.Second, false))
				defer mustRelease(t, l)
			}
			l := mustAcquire(t, b, tc.req(k))
			// The shorter key is held, the longer ones still are, and a new
			// longer key is free.
			mustBeBusy(t, a, k)
			mustBeBusy(t, a, k+"/sub0")
			sub := mustAcquire(t, a, watchdog(k+"/other", false))
			mustRelease(t, sub)
			mustRelease(t, l)
		})
	}
}

// A waiter on "k" must find its real predecessor behind a page of longer
// keys' entries, and wait for it.
func TestExecutor_Acquire_predecessorBehindLongerKeys(t *testing.T) {
	testserver.Check(t, srvErr)
	a := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	b := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	k := uniqueKey(t)
	holder := mustAcquire(t, a, watchdog(k, false))
	for i := range 70 {
		l := mustAcquire(t, a, fixed(fmt.Sprintf("%s/sub%d", k, i), 30*time.Second, false))
		defer mustRelease(t, l)
	}
	ch := acquireAsync(t.Context(), b, watchdog(k, true))
	notYet(t, ch, 300*time.Millisecond)
	mustRelease(t, holder)
	mustRelease(t, outcome(t, ch))
}

// Two acquisitions of one key through one executor share its session's
// lease, hence the entry "<key>/<lease>"; they must still exclude each
// other, and a release by one must not free the other's lock.
func TestExecutor_Acquire_sameKeyOneExecutor(t *testing.T) {
	testserver.Check(t, srvErr)
	e := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	other := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	k := uniqueKey(t)

	first := mustAcquire(t, e, watchdog(k, false))
	if _, err := e.Acquire(t.Context(), watchdog(k, false)); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("second TryLock on the same executor = %v, want ErrNotAcquired", err)
	}
	ch := acquireAsync(t.Context(), e, watchdog(k, true))
	notYet(t, ch, 200*time.Millisecond)
	mustRelease(t, first)
	second := outcome(t, ch)
	if second.Token() <= first.Token() {
		t.Fatalf("second token %d, want > %d", second.Token(), first.Token())
	}
	if err := first.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("stale Release = %v, want ErrLockNotHeld", err)
	}
	mustBeBusy(t, other, k)
	mustRelease(t, second)

	// Many goroutines of one executor, both lease kinds, one key.
	var inside, n atomic.Int64
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	for g := range 16 {
		wg.Go(func() {
			for range 5 {
				r := watchdog(k, true)
				if g%4 == 0 {
					r = fixed(k, 5*time.Second, true)
				}
				l, err := e.Acquire(ctx, r)
				if err != nil {
					t.Error(err)
					return
				}
				if c := inside.Add(1); c > 1 {
					t.Errorf("%d holders of one key at once", c)
				}
				n.Add(1)
				time.Sleep(time.Millisecond)
				inside.Add(-1)
				if err := l.Release(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n.Load() != 80 {
		t.Fatalf("%d acquisitions, want 80", n.Load())
	}
}

// A fixed-expire lock's grant is kept alive while it waits, so a wait
// longer than its TTL keeps its place and gets the lock.
func TestExecutor_Acquire_fixedWaitsLongerThanTTL(t *testing.T) {
	testserver.Check(t, srvErr)
	a := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	b := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	k := uniqueKey(t)
	holder := mustAcquire(t, a, watchdog(k, false))
	ch := acquireAsync(t.Context(), b, fixed(k, 2*time.Second, true))
	notYet(t, ch, 4500*time.Millisecond)
	mustRelease(t, holder)
	l := outcome(t, ch)
	if stop := l.AfterLost(func() { t.Error("a fixed-expire lease reported itself lost") }); !stop() {
		t.Error("AfterLost of a fixed-expire lease ran its function")
	}
	mustRelease(t, l)
}

// Entries live under Prefix+key, spelled as concurrency.Mutex spells them.
func TestExecutor_Acquire_layout(t *testing.T) {
	testserver.Check(t, srvErr)
	cli := newClient(t, srv.Addr())
	tests := []struct{ prefix string }{{""}, {"locks/"}}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("prefix=%q", tc.prefix), func(t *testing.T) {
			e := newExec(t, cli, etcd.Options{Prefix: tc.prefix})
			k := uniqueKey(t)
			r := watchdog(k, false)
			l := mustAcquire(t, e, r)
			defer mustRelease(t, l)
			resp, err := cli.Get(t.Context(), tc.prefix+k+"/", clientv3.WithPrefix())
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Kvs) != 1 {
				t.Fatalf("%d entries under %q, want 1", len(resp.Kvs), tc.prefix+k+"/")
			}
			kv := resp.Kvs[0]
			if want := fmt.Sprintf("%s%s/%x", tc.prefix, k, kv.Lease); string(kv.Key) != want {
				t.Errorf("entry %q, want %q", kv.Key, want)
			}
			if string(kv.Value) != r.Owner || kv.CreateRevision != l.Token() {
				t.Errorf("entry value %q rev %d, want %q rev %d", kv.Value, kv.CreateRevision, r.Owner, l.Token())
			}
		})
	}
}

func TestExecutor_Inspect(t *testing.T) {
	testserver.Check(t, srvErr)
	e := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	w := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	k := uniqueKey(t)
	if _, err := e.Inspect(t.Context(), k); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Inspect of a free key = %v, want ErrLockNotHeld", err)
	}
	r := fixed(k, 20*time.Second, false)
	l := mustAcquire(t, e, r)
	defer mustRelease(t, l)
	ctx, cancel := context.WithCancel(t.Context())
	w1, w2 := acquireAsync(ctx, w, watchdog(k, true)), acquireAsync(ctx, w, fixed(k, 5*time.Second, true))
	defer func() { cancel(); <-w1; <-w2 }()
	var h executor.Holder
	deadline := time.Now().Add(5 * time.Second)
	for h.Waiters != 2 && time.Now().Before(deadline) {
		var err error
		if h, err = e.Inspect(t.Context(), k); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if h.Owner != r.Owner || h.Token != l.Token() || h.TTL <= 15*time.Second || h.TTL > 20*time.Second || h.Waiters != 2 {
		t.Fatalf("Inspect = %+v; want owner %s token %d TTL in (15s, 20s] 2 waiters", h, r.Owner, l.Token())
	}
}

// The fenced-write pattern: a write guarded by IsOwner or OwnerCmp happens
// while the lock is held and never after.
func TestIsOwner_fencedWrite(t *testing.T) {
	testserver.Check(t, srvErr)
	cli := newClient(t, srv.Addr())
	e := newExec(t, cli, etcd.Options{})
	k := uniqueKey(t)
	data := k + "-data"
	l := mustAcquire(t, e, watchdog(k, false))
	byLease, err := etcd.IsOwner(l)
	if err != nil {
		t.Fatal(err)
	}
	byToken, err := e.OwnerCmp(t.Context(), k, l.Token())
	if err != nil {
		t.Fatal(err)
	}
	write := func(cmp clientv3.Cmp) bool {
		resp, err := cli.Txn(t.Context()).If(cmp).Then(clientv3.OpPut(data, "x")).Commit()
		if err != nil {
			t.Fatal(err)
		}
		return resp.Succeeded
	}
	if !write(byLease) || !write(byToken) {
		t.Fatal("fenced write failed while holding the lock")
	}
	mustRelease(t, l)
	next := mustAcquire(t, e, watchdog(k, false)) // same lease, same entry key
	defer mustRelease(t, next)
	if write(byLease) || write(byToken) {
		t.Fatal("fenced write of a released lock succeeded")
	}
	if _, err := e.OwnerCmp(t.Context(), k, l.Token()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("OwnerCmp of a released lock = %v, want ErrLockNotHeld", err)
	}
	if _, err := etcd.IsOwner(nil); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Fatalf("IsOwner(nil) = %v, want ErrInvalidConfig", err)
	}
}

func TestExecutor_Acquire_invalid(t *testing.T) {
	testserver.Check(t, srvErr)
	for name, c := range map[string]*clientv3.Client{"nil": nil, "typed nil": (*clientv3.Client)(nil)} {
		if _, err := etcd.New(c, etcd.Options{}); !errors.Is(err, executor.ErrInvalidConfig) {
			t.Fatalf("New(%s) = %v, want ErrInvalidConfig", name, err)
		}
	}
	e := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	if e.Name() != "etcd" || e.Priority() != etcd.Priority {
		t.Fatalf("Name, Priority = %q, %d", e.Name(), e.Priority())
	}
	tests := []struct {
		name string
		req  executor.Request
		want error
	}{
		{"zero TTL", executor.Request{Key: "k", Owner: "o"}, executor.ErrInvalidConfig},
		{"empty key", executor.Request{Owner: "o", TTL: time.Second}, executor.ErrInvalidKey},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := e.Acquire(t.Context(), tc.req); !errors.Is(err, tc.want) {
				t.Fatalf("Acquire = %v, want %v", err, tc.want)
			}
		})
	}
}

// Close revokes the shared sessions: their locks are lost at once and the
// keys free for others; later calls fail with ErrClosed.
func TestExecutor_Close(t *testing.T) {
	testserver.Check(t, srvErr)
	e, err := etcd.New(newClient(t, srv.Addr()), etcd.Options{Name: "etcd2", Priority: 7})
	if err != nil {
		t.Fatal(err)
	}
	other := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	k := uniqueKey(t)
	l := mustAcquire(t, e, watchdog(k, false))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if !executortest.IsLost(l) {
		t.Fatal("the lease does not report itself lost after Close")
	}
	mustRelease(t, mustAcquire(t, other, watchdog(k, false)))
	if _, err := e.Acquire(t.Context(), watchdog(k, false)); !errors.Is(err, etcd.ErrClosed) || errors.Is(err, executor.ErrBackend) {
		t.Fatalf("Acquire after Close = %v, want ErrClosed alone", err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	if e.Name() != "etcd2" || e.Priority() != 7 {
		t.Fatalf("Name, Priority = %q, %d", e.Name(), e.Priority())
	}
}

// A waiter whose context ends deletes its entry at once: the waiter behind
// it moves up to the holder, and nothing of it is left.
func TestExecutor_Acquire_cancelledWaiterLeavesNothing(t *testing.T) {
	testserver.Check(t, srvErr)
	cli := newClient(t, srv.Addr())
	h := newExec(t, cli, etcd.Options{})
	w1 := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	w2 := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	tests := []struct {
		name string
		req  func(k string) executor.Request
	}{
		{"watchdog", func(k string) executor.Request { return watchdog(k, true) }},
		{"fixed", func(k string) executor.Request { return fixed(k, 30*time.Second, true) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := uniqueKey(t)
			holder := mustAcquire(t, h, watchdog(k, false))
			ctx, cancel := context.WithCancel(t.Context())
			first := acquireAsync(ctx, w1, tc.req(k))
			waitEntries(t, cli, k, 2)
			second := acquireAsync(t.Context(), w2, tc.req(k))
			waitEntries(t, cli, k, 3)
			cancel()
			r := <-first
			if !errors.Is(r.err, executor.ErrNotAcquired) || !errors.Is(r.err, context.Canceled) {
				t.Fatalf("cancelled waiter = %v, want ErrNotAcquired and context.Canceled", r.err)
			}
			waitEntries(t, cli, k, 2)
			notYet(t, second, 100*time.Millisecond)
			mustRelease(t, holder)
			mustRelease(t, outcome(t, second))
			waitEntries(t, cli, k, 0)
		})
	}
}

// waitEntries waits until key has n entries.
func waitEntries(t *testing.T, cli *clientv3.Client, key string, n int) {
	t.Helper()
	var got int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		resp, err := cli.Get(t.Context(), key+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			t.Fatal(err)
		}
		if got = int(resp.Count); got == n {
			return
		}
	}
	t.Fatalf("%q has %d entries, want %d", key, got, n)
}

// A write whose reply is lost may have taken effect: Acquire reports
// ErrBackend and removes the entry it may have written, so it does not
// block others.
func TestExecutor_Acquire_lostReply(t *testing.T) {
	testserver.Check(t, srvErr)
	p, err := testserver.NewProxy(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	observer := newClient(t, srv.Addr())
	e := newExec(t, newClient(t, p.Addr()), etcd.Options{})
	other := newExec(t, observer, etcd.Options{})
	tests := []struct {
		name string
		req  func(k string) executor.Request
	}{
		{"watchdog wait", func(k string) executor.Request { return watchdog(k, true) }},
		{"watchdog try", func(k string) executor.Request { return watchdog(k, false) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := uniqueKey(t)
			mustRelease(t, mustAcquire(t, e, watchdog(k+"-warm", false))) // the session exists
			r := tc.req(k)
			p.SetDropReplies(true)
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			_, err := e.Acquire(ctx, r)
			cancel()
			if !errors.Is(err, executor.ErrBackend) {
				p.SetDropReplies(false)
				t.Fatalf("Acquire with replies lost = %v, want ErrBackend", err)
			}
			// The clean-up reaches etcd even though its reply is lost too.
			waitEntries(t, observer, k, 0)
			mustRelease(t, mustAcquire(t, other, watchdog(k, false)))
			p.SetDropReplies(false)
			mustRelease(t, mustAcquire(t, e, watchdog(k, true)))

			// The write could also have landed after that clean-up: the
			// session keeps it on record, and its void round removes it.
			if n := etcd.UncertainCount(e); n == 0 {
				t.Fatal("the write with a lost reply is not on record")
			}
			id := etcd.SessionLease(e, r.TTL)
			if _, err := observer.Put(t.Context(), entryOf(k, id), r.Owner, clientv3.WithLease(id)); err != nil {
				t.Fatal(err)
			}
			etcd.SweepNow(e)
			waitEntries(t, observer, k, 0)
		})
	}
}

// Close ends a waiting Acquire with ErrClosed.
func TestExecutor_Close_whileWaiting(t *testing.T) {
	testserver.Check(t, srvErr)
	h := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	e, err := etcd.New(newClient(t, srv.Addr()), etcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k := uniqueKey(t)
	holder := mustAcquire(t, h, watchdog(k, false))
	defer mustRelease(t, holder)
	ch := acquireAsync(t.Context(), e, watchdog(k, true))
	notYet(t, ch, 100*time.Millisecond)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if r := <-ch; !errors.Is(r.err, etcd.ErrClosed) {
		t.Fatalf("waiting Acquire after Close = %v, want ErrClosed", r.err)
	}
}
