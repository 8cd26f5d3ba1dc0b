package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/lock4go/lock4go/executor"
)

// req returns a request for key with a fresh owner.
func req(key string, wait bool) executor.Request {
	return executor.Request{Key: key, Owner: newGUID(), TTL: 30 * time.Second, Wait: wait}
}

// awaitWaiters polls Inspect until key has n waiters.
func awaitWaiters(t *testing.T, e *Executor, key string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		h, err := e.Inspect(t.Context(), key)
		if err == nil && h.Waiters == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Inspect(%q) = %+v, %v; want %d waiters", key, h, err, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestExecutor_Acquire_noHerd queues 100 waiters over 4 conns and checks
// that each release wakes exactly one waiter, which re-reads the queue
// exactly once, in FIFO order.
func TestExecutor_Acquire_noHerd(t *testing.T) {
	addr := server(t)
	const conns, waiters = 4, 100
	execs := make([]*Executor, conns)
	for i := range execs {
		execs[i] = newExecutor(t, dial(t, testSession, addr), Options{})
	}
	stats := func() (wakeups, reads int64) {
		for _, e := range execs {
			wakeups += e.stats.wakeups.Load()
			reads += e.stats.childrenReads.Load()
		}
		return wakeups, reads
	}
	key := "herd:" + t.Name()
	holder, err := execs[0].Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	defer wg.Wait() // after cancel, below
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	got := make(chan executor.Lease)
	for i := range waiters {
		wg.Go(func() {
			l, err := execs[i%conns].Acquire(ctx, req(key, true))
			if err != nil {
				if ctx.Err() == nil {
					t.Errorf("waiter %d: %v", i, err)
				}
				return
			}
			select {
			case got <- l:
			case <-ctx.Done():
				_ = l.Release(context.WithoutCancel(ctx))
			}
		})
	}
	awaitWaiters(t, execs[0], key, waiters)
	// A node in the queue is not yet a watch on its predecessor: a waiter
	// that listed the queue but had not set its watch when its predecessor
	// went would take the lock with no watch fired. Start releasing once
	// every waiter blocks on its watch.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var n int64
		for _, e := range execs {
			n += e.stats.waiting.Load()
		}
		if n == waiters {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d waiters blocked on a watch after 10s, want %d", n, waiters)
		}
	}

	w0, r0 := stats()
	if w0 != 0 {
		t.Fatalf("%d predecessor watches fired before any release", w0)
	}
	// One per waiter's node; the holder's create found it alone, and it
	// read no queue.
	if r0 != waiters {
		t.Fatalf("%d queue reads while queueing, want %d (one per waiter)", r0, waiters)
	}
	last := holder.(*lease)
	for i := range waiters {
		wb, rb := stats()
		if err := last.Release(t.Context()); err != nil {
			t.Fatalf("release %d: %v", i, err)
		}
		var next *lease
		select {
		case l := <-got:
			next = l.(*lease)
		case <-ctx.Done():
			t.Fatalf("release %d woke nobody", i)
		}
		wa, ra := stats()
		if wa-wb != 1 || ra-rb != 1 {
			t.Fatalf("release %d: %d watches fired and %d queue reads, want 1 and 1", i, wa-wb, ra-rb)
		}
		if a, b := mustSeq(t, last.path), mustSeq(t, next.path); b <= a {
			t.Fatalf("release %d: node %d acquired after %d: not FIFO", i, b, a)
		}
		if next.Token() <= last.Token() {
			t.Fatalf("token %d after %d", next.Token(), last.Token())
		}
		last = next
	}
	if err := last.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if w, r := stats(); w != waiters || r != 2*waiters {
		t.Fatalf("totals: %d watches fired, %d queue reads; want %d and %d", w, r, waiters, 2*waiters)
	}
}

// mustSeq returns the queue position of the lock node at path.
func mustSeq(t *testing.T, path string) uint32 {
	t.Helper()
	seq, ok := seqOf(path)
	if !ok {
		t.Fatalf("no sequence in %q", path)
	}
	return seqPos(seq)
}

// TestExecutor_Acquire_tryLockLeavesNothing checks that a failed TryLock
// deletes its node before returning.
func TestExecutor_Acquire_tryLockLeavesNothing(t *testing.T) {
	addr := server(t)
	e := newExecutor(t, dial(t, testSession, addr), Options{})
	key := "try:" + t.Name()
	holder, err := e.Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := e.Acquire(t.Context(), req(key, false)); !errors.Is(err, executor.ErrNotAcquired) {
			t.Fatalf("TryLock %d = %v, want ErrNotAcquired", i, err)
		}
		children, _, err := e.conn.Children(e.keyPath(key))
		if err != nil || len(children) != 1 {
			t.Fatalf("after TryLock %d: children %v, %v; want only the holder", i, children, err)
		}
	}
	if err := holder.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	h, err := e.Inspect(t.Context(), key)
	if !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Inspect after release = %+v, %v; want ErrLockNotHeld", h, err)
	}
}

// TestExecutor_Acquire_cancelledWaitLeavesNothing cancels waiting Acquire
// calls. Acquire returns at once; the attempt, woken by the same context,
// deletes its node, so only the holder stays queued.
func TestExecutor_Acquire_cancelledWaitLeavesNothing(t *testing.T) {
	addr := server(t)
	conn := dial(t, testSession, addr)
	e := newExecutor(t, conn, Options{})
	key := "cancelled-wait:" + t.Name()
	parent := e.keyPath(key)
	holder, err := e.Acquire(t.Context(), req(key, false))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		ctx, cancel := context.WithCancel(t.Context())
		acq := acquireAsync(ctx, e, key)
		awaitWaiting(t, e, 1)
		children, _, err := conn.Children(parent)
		if err != nil || len(children) != 2 {
			cancel()
			t.Fatalf("wait %d: children %v, %v; want the holder and the waiter", i, children, err)
		}
		waiter := children[0]
		if parent+"/"+waiter == holder.(*lease).path {
			waiter = children[1]
		}
		_, _, gone, err := conn.ExistsW(parent + "/" + waiter)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		cancel()
		if a := <-acq; !errors.Is(a.err, executor.ErrNotAcquired) || !errors.Is(a.err, context.Canceled) {
			t.Fatalf("cancelled wait %d = %v, %v; want ErrNotAcquired and context.Canceled", i, a.l, a.err)
		}
		select {
		case ev := <-gone:
			if ev.Type != zk.EventNodeDeleted {
				t.Fatalf("wait %d: waiter's node: %v, want deleted", i, ev)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("wait %d: waiter's node %s still there 5s after the cancel", i, waiter)
		}
		children, _, err = conn.Children(parent)
		if err != nil || len(children) != 1 || parent+"/"+children[0] != holder.(*lease).path {
			t.Fatalf("after wait %d: children %v, %v; want only the holder", i, children, err)
		}
	}
	if err := holder.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestExecutor_Inspect reports the holder's owner value and token.
func TestExecutor_Inspect(t *testing.T) {
	addr := server(t)
	e := newExecutor(t, dial(t, testSession, addr), Options{})
	key := fmt.Sprintf("inspect/%s/..", t.Name())
	r := req(key, false)
	l, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(context.WithoutCancel(t.Context()))
	h, err := e.Inspect(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	if h.Owner != r.Owner || h.Token != l.Token() || h.Waiters != 0 || h.TTL != 0 {
		t.Fatalf("Inspect = %+v, want owner %q token %d", h, r.Owner, l.Token())
	}
}

// TestExecutor_Inspect_emptyKey rejects an empty key as Acquire does.
func TestExecutor_Inspect_emptyKey(t *testing.T) {
	e := newExecutor(t, dial(t, testSession, server(t)), Options{})
	if h, err := e.Inspect(t.Context(), ""); !errors.Is(err, executor.ErrInvalidKey) {
		t.Fatalf("Inspect(\"\") = %+v, %v; want ErrInvalidKey", h, err)
	}
}
