package etcd_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
)

// startCluster starts a 3-member etcd cluster for one test.
func startCluster(t *testing.T) *testserver.Cluster {
	t.Helper()
	c, err := testserver.StartEtcdCluster(3)
	testserver.Check(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

func TestCluster_conformance(t *testing.T) {
	c := startCluster(t)
	executortest.Run(t, func(t *testing.T) executor.Executor {
		return newExec(t, newClient(t, c.Addrs()...), etcd.Options{})
	}, conformanceOptions)
}

// Killing the leader while 32 goroutines over 4 clients contend for one key
// never lets two of them hold it, tokens keep growing, and acquisitions go
// on after the election.
func TestCluster_leaderKilledUnderContention(t *testing.T) {
	c := startCluster(t)
	const (
		clients    = 4
		perClient  = 8
		hold       = time.Millisecond
		afterKill  = 5 * time.Second
		beforeKill = time.Second
	)
	k := uniqueKey(t)
	var (
		inside, maxInside atomic.Int64
		acquired, backend atomic.Int64
		tokenMu           sync.Mutex
		lastToken         int64
	)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var wg sync.WaitGroup
	for range clients {
		e := newExec(t, newClient(t, c.Addrs()...), etcd.Options{})
		for range perClient {
			wg.Go(func() {
				for ctx.Err() == nil {
					actx, acancel := context.WithTimeout(ctx, 3*time.Second)
					l, err := e.Acquire(actx, watchdog(k, true))
					acancel()
					if err != nil {
						if errors.Is(err, executor.ErrBackend) {
							backend.Add(1)
							time.Sleep(20 * time.Millisecond)
						}
						continue
					}
					if n := inside.Add(1); n > maxInside.Load() {
						maxInside.Store(n)
					}
					tokenMu.Lock()
					if l.Token() <= lastToken {
						t.Errorf("token %d after %d", l.Token(), lastToken)
					}
					lastToken = l.Token()
					tokenMu.Unlock()
					acquired.Add(1)
					time.Sleep(hold)
					inside.Add(-1)
					rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
					_ = l.Release(rctx) // a failed release is retried in the background
					rcancel()
				}
			})
		}
	}
	time.Sleep(beforeKill)
	leader, err := c.Leader()
	if err != nil {
		cancel()
		wg.Wait()
		t.Fatal(err)
	}
	before := acquired.Load()
	if err := c.Servers[leader].Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	// The first acquisition after the kill tells when service resumed.
	var resumed time.Duration
	for time.Since(killed) < afterKill {
		if resumed == 0 && acquired.Load() > before+1 {
			resumed = time.Since(killed)
		}
		time.Sleep(5 * time.Millisecond)
	}
	after := acquired.Load() - before
	cancel()
	wg.Wait()
	t.Logf("acquisitions: %d in %v before killing leader m%d, %d in %v after (first after %v); %d backend errors",
		before, beforeKill, leader+1, after, afterKill, resumed, backend.Load())
	if m := maxInside.Load(); m != 1 {
		t.Fatalf("%d holders at once", m)
	}
	if after < 10 {
		t.Fatalf("only %d acquisitions after the leader was killed", after)
	}
}
