package zookeeper

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/internal/testserver"
)

// TestEnsemble runs the conformance suite against a 3-node ensemble, then
// kills the leader while locks are held and contended: there must never be
// two holders, counting a holder until its Lost closes or it releases.
func TestEnsemble(t *testing.T) {
	server(t) // skip early when ZooKeeper is not installed
	c, err := testserver.StartZooKeeperEnsemble(3)
	testserver.Check(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	addrs := c.Addrs()

	t.Run("Conformance", func(t *testing.T) {
		executortest.Run(t, func(t *testing.T) executor.Executor {
			return newExecutor(t, dial(t, testSession, addrs...), Options{})
		}, executortest.Options{NoExpiry: true, PermitsUnchecked: true})
	})

	t.Run("LeaderKilled", func(t *testing.T) {
		const execs, perExec = 4, 3
		key := "ensemble:" + t.Name()
		var (
			violations, acquired, afterKill, lost atomic.Int64
			killed                                atomic.Bool
			current                               atomic.Pointer[executor.Lease]
		)
		ctx, stop := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		defer wg.Wait()
		defer stop()
		worker := func(e *Executor) {
			for ctx.Err() == nil {
				actx, cancel := context.WithTimeout(ctx, 2*time.Second)
				l, err := e.Acquire(actx, req(key, true))
				cancel()
				if err != nil {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				me := &l
				if prev := current.Swap(me); prev != nil {
					if !executortest.IsLost(*prev) {
						violations.Add(1)
						t.Errorf("two holders: token %d acquired while %d still held", l.Token(), (*prev).Token())
					}
				}
				acquired.Add(1)
				if killed.Load() {
					afterKill.Add(1)
				}
				select {
				case <-time.After(100 * time.Millisecond):
				case <-executortest.Lost(l):
					lost.Add(1)
				}
				current.CompareAndSwap(me, nil)
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
				_ = l.Release(rctx)
				cancel()
			}
		}
		for range execs {
			e := newExecutor(t, dial(t, testSession, addrs...), Options{})
			for range perExec {
				wg.Go(func() { worker(e) })
			}
		}
		for deadline := time.Now().Add(30 * time.Second); acquired.Load() < 10 || current.Load() == nil; {
			if time.Now().After(deadline) {
				t.Fatalf("%d acquisitions in 30s before the kill (held now: %v), want 10 and a holder",
					acquired.Load(), current.Load() != nil)
			}
			time.Sleep(time.Millisecond)
		}
		leader, err := c.Leader()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Servers[leader].Kill(); err != nil {
			t.Fatal(err)
		}
		killed.Store(true)
		killedAt := time.Now()
		for afterKill.Load() < 10 && time.Since(killedAt) < 30*time.Second {
			time.Sleep(10 * time.Millisecond)
		}
		stop()
		wg.Wait()
		t.Logf("%d acquisitions, %d in the %v after killing leader %d; %d leases lost",
			acquired.Load(), afterKill.Load(), time.Since(killedAt).Round(time.Millisecond), leader, lost.Load())
		if afterKill.Load() == 0 {
			t.Fatal("no acquisition after the leader was killed")
		}
		if v := violations.Load(); v != 0 {
			t.Fatalf("%d times two holders", v)
		}
	})
}
