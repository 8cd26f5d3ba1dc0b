package etcd_test

import (
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
)

// A writer behind many readers waits on one watch of the queue's range,
// not on one watch per reader (each new watch can wait for etcd's 100 ms
// catch-up under load): releasing the readers newest first, the order in
// which each release reveals the next reader, costs the writer one watch
// and a handful of reads.
func TestExecutor_Acquire_writerBehindReaders(t *testing.T) {
	testserver.Check(t, srvErr)
	const readers = 16
	readersExec := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	k := uniqueKey(t)
	held := make([]executor.Lease, readers)
	for i := range held {
		held[i] = mustAcquire(t, readersExec, read(k, false))
	}
	cli := newClient(t, srv.Addr())
	w := &countedWaiter{kv: &countingKV{KV: cli.KV}, watcher: &countingWatcher{Watcher: cli.Watcher}}
	cli.KV, cli.Watcher = w.kv, w.watcher
	w.ch = acquireAsync(t.Context(), newExec(t, cli, etcd.Options{}), watchdog(k, true))
	for w.watcher.calls.Load() == 0 {
		time.Sleep(time.Millisecond) // until the writer watches
	}
	kvBefore, _ := w.counts()
	var last time.Time
	for i := readers - 1; i >= 0; i-- {
		last = time.Now()
		mustRelease(t, held[i])
	}
	writer := outcome(t, w.ch)
	took := time.Since(last)
	mustRelease(t, writer)
	kv, watches := w.counts()
	t.Logf("writer acquired %v after the last reader's release began; %d watches, %d reads while readers left", took, watches, kv-kvBefore)
	if watches > 2 { // one, and one more if etcd cut the first
		t.Errorf("the writer opened %d watches behind %d readers; want 1", watches, readers)
	}
}

// Readers of one process queued behind one writer share one watch of the
// writer's entry: each watch a client opens waits for the ones before it
// on the client's watch stream, so 64 readers' watches held up the next
// writer's by up to 150 ms. The release of the writer still wakes them all.
func TestExecutor_Acquire_readersShareWatch(t *testing.T) {
	testserver.Check(t, srvErr)
	const readers = 16
	writerExec := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
	k := uniqueKey(t)
	writer := mustAcquire(t, writerExec, watchdog(k, false))
	cli := newClient(t, srv.Addr())
	watcher := &countingWatcher{Watcher: cli.Watcher}
	cli.Watcher = watcher
	readersExec := newExec(t, cli, etcd.Options{})
	chs := make([]<-chan result, readers)
	for i := range chs {
		chs[i] = acquireAsync(t.Context(), readersExec, read(k, true))
	}
	entry := etcd.SessionEntry(writerExec, k, 30*time.Second)
	shared := testwait.Until(30*time.Second, func() bool {
		waits, _ := etcd.KeyWaiters(readersExec, entry)
		return waits == readers
	})
	if n := watcher.calls.Load(); !shared || n != 1 {
		t.Fatalf("%d readers behind one writer opened %d watches, want 1", readers, n)
	}
	mustRelease(t, writer)
	for _, ch := range chs {
		mustRelease(t, outcome(t, ch))
	}
	if _, watches := etcd.KeyWaiters(readersExec, entry); watches != 0 {
		t.Fatalf("%d shared watches still open after the waits", watches)
	}
}
