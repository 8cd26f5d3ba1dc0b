package zookeeper

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// BenchmarkUncontended compares one uncontended acquire and release with
// go-zookeeper's zk.Lock and with a bare ephemeral create and delete, on one
// conn, one after another.
//
//	go test -run '^$' -bench . -benchtime 2000x ./executors/zookeeper/
func BenchmarkUncontended(b *testing.B) {
	addr := server(b)
	conn := dial(b, testSession, addr)
	e := newExecutor(b, conn, Options{})
	key := fmt.Sprintf("bench:%d", time.Now().UnixNano())
	warmUp(b, e)

	b.Run("lock4go", func(b *testing.B) {
		for b.Loop() {
			l, err := e.Acquire(b.Context(), req(key, false))
			if err != nil {
				b.Fatal(err)
			}
			if err := l.Release(b.Context()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("zk.Lock", func(b *testing.B) {
		zl := zk.NewLock(conn, e.keyPath(key+":zk"), zk.WorldACL(zk.PermAll))
		for b.Loop() {
			if err := zl.Lock(); err != nil {
				b.Fatal(err)
			}
			if err := zl.Unlock(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("create+delete", func(b *testing.B) {
		path := e.keyPath(key + ":raw")
		if _, err := conn.Create(path, nil, zk.FlagPersistent, zk.WorldACL(zk.PermAll)); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			p, err := conn.Create(path+"/n", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
			if err != nil {
				b.Fatal(err)
			}
			if err := conn.Delete(p, -1); err != nil {
				b.Fatal(err)
			}
		}
		_ = conn.Delete(path, -1)
	})
}

// warmUp exercises the server, started fresh by TestMain, so that the JVM's
// JIT compiler has done its work before the first measurement.
func warmUp(b *testing.B, e *Executor) {
	for i := range 3000 {
		l, err := e.Acquire(b.Context(), req(fmt.Sprintf("warm-up:%d", i%10), false))
		if err != nil {
			b.Fatal(err)
		}
		_ = l.Release(b.Context())
	}
}

// BenchmarkHandoff measures the time from a holder's Release call to the
// next waiter's lease, with 2 and 64 goroutines contending over 4 conns,
// and reports its median and 99th percentile.
func BenchmarkHandoff(b *testing.B) {
	addr := server(b)
	execs := make([]*Executor, 4)
	for i := range execs {
		execs[i] = newExecutor(b, dial(b, testSession, addr), Options{})
	}
	warmUp(b, execs[0])
	for _, waiters := range []int{2, 64} {
		b.Run(fmt.Sprintf("waiters=%d", waiters), func(b *testing.B) {
			key := fmt.Sprintf("handoff:%d:%d", waiters, time.Now().UnixNano())
			var (
				mu         sync.Mutex
				samples    []time.Duration
				releasedAt atomic.Int64
				left       atomic.Int64
				wg         sync.WaitGroup
			)
			left.Store(int64(b.N))
			ctx, cancel := context.WithCancel(b.Context())
			defer cancel()
			b.ResetTimer()
			for i := range waiters {
				e := execs[i%len(execs)]
				wg.Go(func() {
					for left.Add(-1) >= 0 {
						l, err := e.Acquire(ctx, req(key, true))
						if err != nil {
							b.Error(err)
							cancel()
							return
						}
						if at := releasedAt.Load(); at != 0 {
							d := time.Since(time.Unix(0, at))
							mu.Lock()
							samples = append(samples, d)
							mu.Unlock()
						}
						releasedAt.Store(time.Now().UnixNano())
						if err := l.Release(ctx); err != nil {
							b.Error(err)
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			if len(samples) == 0 {
				return
			}
			slices.Sort(samples)
			b.ReportMetric(float64(samples[len(samples)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(samples[len(samples)*99/100].Microseconds()), "p99-µs")
		})
	}
}
