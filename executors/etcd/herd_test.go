package etcd_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
)

// countingKV counts the transactions and reads a client makes.
type countingKV struct {
	clientv3.KV
	calls atomic.Int64
}

func (c *countingKV) Txn(ctx context.Context) clientv3.Txn {
	c.calls.Add(1)
	return c.KV.Txn(ctx)
}

func (c *countingKV) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	c.calls.Add(1)
	return c.KV.Get(ctx, key, opts...)
}

// countingWatcher counts the watches a client opens.
type countingWatcher struct {
	clientv3.Watcher
	calls atomic.Int64
}

func (c *countingWatcher) Watch(ctx context.Context, key string, opts ...clientv3.OpOption) clientv3.WatchChan {
	c.calls.Add(1)
	return c.Watcher.Watch(ctx, key, opts...)
}

type countedWaiter struct {
	kv      *countingKV
	watcher *countingWatcher
	ch      <-chan result
}

func (w *countedWaiter) counts() (int64, int64) { return w.kv.calls.Load(), w.watcher.calls.Load() }

// A release wakes only the next waiter: every other waiter makes no
// request at all, and the next one makes one read (the check that it is
// first, its entry included) and opens no watch.
func TestExecutor_Acquire_noHerd(t *testing.T) {
	testserver.Check(t, srvErr)
	const n = 8
	holderExec := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	k := uniqueKey(t)
	holder := mustAcquire(t, holderExec, watchdog(k, false))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	waiters := make([]*countedWaiter, n)
	for i := range waiters {
		cli := newClient(t, srv.Addr())
		w := &countedWaiter{kv: &countingKV{KV: cli.KV}, watcher: &countingWatcher{Watcher: cli.Watcher}}
		cli.KV, cli.Watcher = w.kv, w.watcher
		w.ch = acquireAsync(ctx, newExec(t, cli, etcd.Options{}), watchdog(k, true))
		waiters[i] = w
		// Queue them in order: wait until this one watches its predecessor.
		for w.watcher.calls.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	// Let the last watch register, and the reads that back young watches in
	// a short queue (the first waiters) end.
	time.Sleep(150 * time.Millisecond)
	for i := range waiters {
		kvBefore := make([]int64, n)
		wBefore := make([]int64, n)
		for j, w := range waiters {
			kvBefore[j], wBefore[j] = w.counts()
		}
		mustRelease(t, holder)
		holder = outcome(t, waiters[i].ch)
		time.Sleep(50 * time.Millisecond) // anyone woken by mistake would read now
		for j, w := range waiters {
			kv, watches := w.counts()
			dkv, dw := kv-kvBefore[j], watches-wBefore[j]
			switch {
			case j == i && (dkv != 1 || dw != 0):
				t.Fatalf("release %d: the next waiter made %d reads and %d watches, want 1 and 0", i, dkv, dw)
			case j > i && (dkv != 0 || dw != 0):
				t.Fatalf("release %d: waiter %d, not next, made %d reads and %d watches", i, j, dkv, dw)
			}
		}
	}
	mustRelease(t, holder)
}
