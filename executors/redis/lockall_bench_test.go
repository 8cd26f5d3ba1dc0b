package redis_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/redis"
)

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
