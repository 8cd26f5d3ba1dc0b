package lock4go

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

// queuedExec is the memory executor dressed as one whose waiters queue on
// the backend; it records the Followers of every waiting attempt.
type queuedExec struct {
	*memory.Executor
	mu        sync.Mutex
	followers []bool
}

func (q *queuedExec) Capabilities() executor.Capabilities {
	return executor.Capabilities{InProcess: true, Wait: executor.WaitQueued}
}

func (q *queuedExec) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	if req.Wait {
		q.mu.Lock()
		q.followers = append(q.followers, req.Followers)
		q.mu.Unlock()
	}
	return q.Executor.Acquire(ctx, req)
}

// TestTemplate_Lock_followers checks that the Template tells an executor
// whose waiters queue on the backend whether goroutines of the process wait
// behind an attempt (Request.Followers): so the executor can keep the
// process queued for them.
func TestTemplate_Lock_followers(t *testing.T) {
	qe := &queuedExec{Executor: memory.New(memory.Options{})}
	tpl, err := New(Config{RetryInterval: 5 * time.Millisecond}, qe)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	a, err := tpl.Lock(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	// Two goroutines wait in the local queue behind a.
	got := make(chan *Lock, 2)
	for range 2 {
		go func() {
			l, err := tpl.Lock(ctx, "k", WithAcquireTimeout(10*time.Second))
			if err != nil {
				t.Error(err)
			}
			got <- l
		}()
	}
	name := turnKey{qe.Name(), "k"}
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := tpl.turns.State(name)
		refs := st.Waiting
		if st.Taken {
			refs++
		}
		if refs == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines on the turn, want 3", refs)
		}
		time.Sleep(time.Millisecond)
	}
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	b := <-got
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}
	c := <-got
	if err := c.Release(ctx); err != nil {
		t.Fatal(err)
	}
	qe.mu.Lock()
	defer qe.mu.Unlock()
	want := []bool{false, true, false} // a alone; b with c behind; c alone
	if len(qe.followers) != len(want) {
		t.Fatalf("Followers of the waiting attempts = %v, want %v", qe.followers, want)
	}
	for i := range want {
		if qe.followers[i] != want[i] {
			t.Fatalf("Followers of the waiting attempts = %v, want %v", qe.followers, want)
		}
	}
}
