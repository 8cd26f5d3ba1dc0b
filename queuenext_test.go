package lock4go_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/internal/testwait"
)

// nextExec is the memory executor declaring Capabilities.QueueNext, as
// ZooKeeper's does: each waiting attempt queues in the executor.
type nextExec struct{ *memory.Executor }

func (n nextExec) Capabilities() executor.Capabilities {
	c := n.Executor.Capabilities()
	c.QueueNext = true
	return c
}

// On an executor that queues the next caller, the caller next in the local
// queue waits in the executor's queue behind the holder while it holds,
// and only that caller: the others wait in the Template. Releases hand the
// key on in arrival order, and a TryLock in between does not overtake.
func TestTemplate_Lock_queueNext(t *testing.T) {
	e := nextExec{memory.New(memory.Options{})}
	tpl, err := lock4go.New(lock4go.Config{AcquireTimeout: time.Minute}, e)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	holder, err := tpl.Lock(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	got := queueCallers(t, tpl, e, 3)
	if _, err := tpl.TryLock(ctx, "k"); !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("TryLock while the key is held = %v, want ErrNotAcquired", err)
	}
	last := holder
	for want := range 3 {
		if err := last.Release(ctx); err != nil {
			t.Fatal(err)
		}
		r := <-got
		if r.i != want {
			t.Fatalf("release %d went to caller %d, want %d", want, r.i, want)
		}
		if r.l.Token() <= last.Token() {
			t.Fatalf("token %d after %d", r.l.Token(), last.Token())
		}
		last = r.l
	}
	if err := last.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// lockResult is the i-th caller's lock.
type lockResult struct {
	i int
	l *lock4go.Lock
}

// queueCallers starts n callers of "k" one after another, each once the
// one before waits, and checks that only the first of them waits in the
// executor.
func queueCallers(t *testing.T, tpl *lock4go.Template, e nextExec, n int) <-chan lockResult {
	ctx := t.Context()
	got := make(chan lockResult, n)
	for i := range n {
		go func() {
			l, err := tpl.Lock(ctx, "k")
			if err != nil {
				t.Error(err)
				return
			}
			got <- lockResult{i, l}
		}()
		testwait.For(t, 10*time.Second, "callers in the local queue", func() bool {
			h, err := tpl.Inspect(ctx, "k")
			return err == nil && h.LocalWaiters == i+1
		})
		h, err := e.Inspect(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		if h.Waiters != 1 {
			t.Fatalf("%d callers waiting: %d waiting in the executor, want 1", i+1, h.Waiters)
		}
	}
	return got
}
