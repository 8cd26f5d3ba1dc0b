package redis_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
)

// BenchmarkKinds compares uncontended acquire+release pairs of a read lock
// and of a 1-permit semaphore with the lock's, interleaved in one loop so
// that the ratios stay meaningful on a busy machine (targets: read ≤ 1.15×,
// permit ≤ 1.2× the lock). Run with:
//
//	go test -run '^$' -bench Kinds -benchtime 3000x -count 3 ./executors/redis/
func BenchmarkKinds(b *testing.B) {
	e := newExecutor(b, newClient(b, server(b).Addr(), ctxTimeouts), redis.Options{})
	ctx := context.Background()
	lock := executor.Request{Key: uniq(b, "bench:lock"), TTL: benchTTL}
	read := executor.Request{Key: uniq(b, "bench:read"), TTL: benchTTL, Shared: true}
	permit := executor.Request{Key: uniq(b, "bench:permit"), TTL: benchTTL, Permits: 1}
	var tLock, tRead, tPermit time.Duration
	pair := func(r executor.Request) time.Duration {
		r.Owner = owner()
		start := time.Now()
		execPair(b, ctx, e, r)
		return time.Since(start)
	}
	for b.Loop() {
		tLock += pair(lock)
		tRead += pair(read)
		tPermit += pair(permit)
	}
	n := float64(b.N)
	b.ReportMetric(float64(tLock.Microseconds())/n, "lock-µs")
	b.ReportMetric(float64(tRead)/float64(tLock), "read/lock")
	b.ReportMetric(float64(tPermit)/float64(tLock), "permit/lock")
}

// BenchmarkLockAll compares LockAll of k keys (all tried at once, one round
// trip when none is busy) with k Locks one after the other, both released
// key by key, interleaved. Run with:
//
//	go test -run '^$' -bench LockAll -benchtime 2000x -count 3 ./executors/redis/
func BenchmarkLockAll(b *testing.B) {
	e := newExecutor(b, newClient(b, server(b).Addr(), ctxTimeouts), redis.Options{})
	tpl, err := lock4go.New(lock4go.Config{}, e)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, k := range []int{2, 4, 8} {
		keys := make([]string, k)
		for i := range keys {
			keys[i] = uniq(b, "bench:all")
		}
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			var tAll, tEach time.Duration
			held := make([]*lock4go.Lock, k)
			for b.Loop() {
				start := time.Now()
				l, err := tpl.LockAll(ctx, keys)
				if err != nil {
					b.Fatal(err)
				}
				if err := l.Release(ctx); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				for i, key := range keys {
					if held[i], err = tpl.Lock(ctx, key); err != nil {
						b.Fatal(err)
					}
				}
				for _, l := range held {
					if err := l.Release(ctx); err != nil {
						b.Fatal(err)
					}
				}
				tAll += mid.Sub(start)
				tEach += time.Since(mid)
			}
			b.ReportMetric(float64(tAll.Microseconds())/float64(b.N), "all-µs")
			b.ReportMetric(float64(tAll)/float64(tEach), "all/each")
		})
	}
}
