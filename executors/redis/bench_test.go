package redis_test

import (
	"context"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
)

// rawRelease is the usual compare-and-delete of a plain SET NX PX lock.
var rawRelease = goredis.NewScript(`if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`)

const benchTTL = 30 * time.Second

// rawPair is one uncontended lock and unlock with plain go-redis calls.
func rawPair(b *testing.B, ctx context.Context, c *goredis.Client, key, val string) {
	if !c.SetNX(ctx, key, val, benchTTL).Val() {
		b.Fatal("SET NX failed")
	}
	if n, err := rawRelease.Run(ctx, c, []string{key}, val).Int(); n != 1 || err != nil {
		b.Fatal("release failed", err)
	}
}

// execPair is one uncontended Acquire and Release through e.
func execPair(b *testing.B, ctx context.Context, e *redis.Executor, r executor.Request) {
	l, err := e.Acquire(ctx, r)
	if err != nil {
		b.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAcquireRelease compares one uncontended acquire+release through
// the executor with the raw go-redis pair it replaces: SET NX PX plus a Lua
// compare-and-delete. The "interleaved" case runs both alternately in one
// loop and reports their ratio, which stays meaningful on a busy machine.
// Run with:
//
//	go test -run '^$' -bench AcquireRelease -benchmem ./executors/redis/
func BenchmarkAcquireRelease(b *testing.B) {
	s := server(b)
	b.Run("raw", func(b *testing.B) {
		c := newClient(b, s.Addr())
		ctx := context.Background()
		key, val := uniq(b, "bench:"), owner()
		b.ReportAllocs()
		for b.Loop() {
			rawPair(b, ctx, c, key, val)
		}
	})
	for _, bc := range []struct {
		name     string
		opts     []clientOpt
		deadline bool
	}{
		{"executor", nil, false},
		{"executor/deadline/ContextTimeoutEnabled", []clientOpt{ctxTimeouts}, true},
		{"executor/deadline/ContextTimeoutDisabled", nil, true}, // the executor's goroutine bounds each call
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := newExecutor(b, newClient(b, s.Addr(), bc.opts...), redis.Options{})
			ctx := context.Background()
			if bc.deadline {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Hour)
				defer cancel()
			}
			r := executor.Request{Key: uniq(b, "bench:"), Owner: owner(), TTL: benchTTL}
			b.ReportAllocs()
			for b.Loop() {
				execPair(b, ctx, e, r)
			}
		})
	}
	b.Run("interleaved", func(b *testing.B) {
		c := newClient(b, s.Addr(), ctxTimeouts)
		e := newExecutor(b, c, redis.Options{})
		ctx := context.Background()
		key, val := uniq(b, "bench:"), owner()
		r := executor.Request{Key: uniq(b, "bench:"), Owner: owner(), TTL: benchTTL}
		var raw, ex time.Duration
		n := 0
		for b.Loop() {
			t0 := time.Now()
			if n%2 == 0 {
				rawPair(b, ctx, c, key, val)
				t1 := time.Now()
				execPair(b, ctx, e, r)
				raw, ex = raw+t1.Sub(t0), ex+time.Since(t1)
			} else {
				execPair(b, ctx, e, r)
				t1 := time.Now()
				rawPair(b, ctx, c, key, val)
				ex, raw = ex+t1.Sub(t0), raw+time.Since(t1)
			}
			n++
		}
		b.ReportMetric(float64(raw.Nanoseconds())/float64(n), "raw-ns/pair")
		b.ReportMetric(float64(ex.Nanoseconds())/float64(n), "executor-ns/pair")
		b.ReportMetric(float64(ex)/float64(raw), "executor/raw")
	})
}
