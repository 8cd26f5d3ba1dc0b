package etcd_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
)

// Uncontended acquire+release, one client, against the two baselines in
// the same run: etcd's concurrency.Mutex on a reused session, and the raw
// pair (put-if-absent transaction + delete). Every iteration runs each
// variant once, in rotating order, so disk (fsync) and load drift hit them
// alike;
// each variant's mean is reported in µs, with lock4go's ratios to both.
//
//	go test -run '^$' -bench 'Uncontended|Handoff' -benchtime 2000x ./executors/etcd/
func BenchmarkUncontended(b *testing.B) {
	testserver.Check(b, srvErr)
	cli := newClient(b, srv.Addr())
	e := newExec(b, cli, etcd.Options{})
	ctx := b.Context()
	s, err := concurrency.NewSession(cli)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rawKey := uniqueKey(b) + "/raw"
	m := concurrency.NewMutex(s, uniqueKey(b)+"/mutex")
	lockKey := uniqueKey(b) + "/lock4go"

	variants := []struct {
		name string
		run  func() error
	}{
		{"raw", func() error {
			resp, err := cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(rawKey), "=", 0)).
				Then(clientv3.OpPut(rawKey, "owner")).Commit()
			if err != nil || !resp.Succeeded {
				return fmt.Errorf("put: %v", err)
			}
			_, err = cli.Delete(ctx, rawKey)
			return err
		}},
		{"mutex", func() error {
			if err := m.Lock(ctx); err != nil {
				return err
			}
			return m.Unlock(ctx)
		}},
		{"lock4go", lockPair(ctx, e, watchdog(lockKey, true))},
		{"lock4go-try", lockPair(ctx, e, watchdog(lockKey+"-try", false))},
		// A key of its own: each fixed-expire lock has a lease of its own,
		// so a new entry name, and etcd keeps every deleted name in its
		// index until compaction, which slows later reads of that queue.
		{"lock4go-fixed", lockPair(ctx, e, fixed(lockKey+"-fixed", 30*time.Second, true))},
	}
	samples := make([][]time.Duration, len(variants))
	order := make([]int, len(variants))
	for i := range order {
		order[i] = i
	}
	for b.Loop() {
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			start := time.Now()
			if err := variants[i].run(); err != nil {
				b.Fatalf("%s: %v", variants[i].name, err)
			}
			samples[i] = append(samples[i], time.Since(start))
		}
	}
	median := make([]float64, len(variants))
	for i, v := range variants {
		slices.Sort(samples[i])
		median[i] = float64(samples[i][len(samples[i])/2]) / float64(time.Microsecond)
		b.ReportMetric(median[i], v.name+"-µs")
	}
	b.ReportMetric(median[2]/median[0], "lock4go/raw")
	b.ReportMetric(median[2]/median[1], "lock4go/mutex")
	b.ReportMetric(0, "ns/op")
}

// lockPair returns one Acquire+Release of r through e.
func lockPair(ctx context.Context, e *etcd.Executor, r executor.Request) func() error {
	return func() error {
		l, err := e.Acquire(ctx, r)
		if err != nil {
			return err
		}
		return l.Release(ctx)
	}
}

// Hand-off latency, from the start of a holder's release to the next
// holder's acquisition, with n waiters (n+1 contenders, one client each).
// The variants run in alternating rounds, in random order, so load drift
// hits them alike: lock4go, lock4go without the reads that back a young
// watch (see blockWatch), and concurrency.Mutex. Each round starts with all
// contenders queueing at once; its first n+1 hand-offs are not counted.
func BenchmarkHandoff(b *testing.B) {
	testserver.Check(b, srvErr)
	for _, n := range []int{2, 64} {
		b.Run(fmt.Sprintf("waiters=%d", n), func(b *testing.B) {
			key := uniqueKey(b)
			lock4go := func(poll bool) []locker {
				ls := make([]locker, n+1)
				for i := range ls {
					e := newExec(b, newClient(b, srv.Addr()), etcd.Options{})
					if !poll {
						etcd.SetPollAfter(e, nil)
					}
					k := key + "/lock4go"
					if !poll {
						k = key + "/nopoll"
					}
					ls[i] = func(ctx context.Context) (func(context.Context) error, error) {
						l, err := e.Acquire(ctx, watchdog(k, true))
						if err != nil {
							return nil, err
						}
						return l.Release, nil
					}
				}
				return ls
			}
			mutex := make([]locker, n+1)
			for i := range mutex {
				s, err := concurrency.NewSession(newClient(b, srv.Addr()))
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = s.Close() })
				m := concurrency.NewMutex(s, key+"/mutex")
				mutex[i] = func(ctx context.Context) (func(context.Context) error, error) {
					if err := m.Lock(ctx); err != nil {
						return nil, err
					}
					return m.Unlock, nil
				}
			}
			variants := []struct {
				name    string
				lockers []locker
				lat     []time.Duration
			}{
				{name: "lock4go", lockers: lock4go(true)},
				{name: "nopoll", lockers: lock4go(false)},
				{name: "mutex", lockers: mutex},
			}
			round := max(100, 4*(n+1))
			b.ResetTimer()
			for done := 0; done < b.N; done += round {
				for _, i := range rand.Perm(len(variants)) {
					lat := handoffRound(b, variants[i].lockers, n+1+round)
					variants[i].lat = append(variants[i].lat, lat[n+1:]...)
				}
			}
			b.StopTimer()
			for _, v := range variants {
				slices.Sort(v.lat)
				pct := func(p float64) float64 {
					return float64(v.lat[int(p*float64(len(v.lat)-1))]) / float64(time.Millisecond)
				}
				b.ReportMetric(pct(0.5), v.name+"-p50-ms")
				b.ReportMetric(pct(0.9), v.name+"-p90-ms")
				b.ReportMetric(pct(0.99), v.name+"-p99-ms")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// locker acquires a lock and returns its release.
type locker func(context.Context) (release func(context.Context) error, err error)

// handoffRound lets lockers contend for one key until n hand-offs are
// measured and returns them.
func handoffRound(b *testing.B, lockers []locker, n int) []time.Duration {
	var (
		releasedAt atomic.Int64 // ns since base when the last release began; 0 when none
		mu         sync.Mutex
		lat        = make([]time.Duration, 0, n)
	)
	base := time.Now()
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	var wg sync.WaitGroup
	for _, lock := range lockers {
		wg.Go(func() {
			for ctx.Err() == nil {
				release, err := lock(ctx)
				if err != nil {
					return
				}
				if at := releasedAt.Swap(0); at != 0 {
					d := time.Since(base) - time.Duration(at)
					mu.Lock()
					if len(lat) < n {
						lat = append(lat, d)
					}
					if len(lat) == n {
						cancel()
					}
					mu.Unlock()
				}
				releasedAt.Store(int64(time.Since(base)))
				if err := release(context.WithoutCancel(ctx)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return lat
}
