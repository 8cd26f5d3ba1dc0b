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
	b.Run("interleaved", func(b *testing.B) { interleavedPairs(b, s.Addr()) })
}

// interleavedPairs alternates raw SET NX + compare-and-delete pairs with
// the executor's Acquire+Release pairs on the server at addr, the first of
// each couple in turn, and reports both means and their ratio.
func interleavedPairs(b *testing.B, addr string) {
	c := newClient(b, addr, ctxTimeouts)
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
}

// BenchmarkRun measures what bounding a call by its context costs when the
// client does not (no ContextTimeoutEnabled): the executor then hands the
// call off to another goroutine. "direct" runs the call in the caller's
// goroutine (a context that never ends), "handoff" as Acquire, Renew and
// Release do with a context that can end. "noop" is the bare hand-off,
// "ping" one round trip to Redis; "ping/interleaved" alternates both in one
// loop and reports the ns of each per call, which stays comparable on a busy
// machine. Run with:
//
//	go test -run '^$' -bench '^BenchmarkRun$' -benchmem -count 6 ./executors/redis/
func BenchmarkRun(b *testing.B) {
	s := server(b)
	c := newClient(b, s.Addr())
	e := newExecutor(b, c, redis.Options{})
	direct := context.Background()
	bounded, cancel := context.WithTimeout(direct, time.Hour)
	defer cancel()
	noop := func(context.Context) error { return nil }
	ping := func(ctx context.Context) error { return c.Ping(ctx).Err() }
	call := func(b *testing.B, ctx context.Context, fn func(context.Context) error) {
		if err, _ := redis.Run(e, ctx, fn); err != nil {
			b.Fatal(err)
		}
	}
	for _, fc := range []struct {
		name string
		fn   func(context.Context) error
	}{{"noop", noop}, {"ping", ping}} {
		for _, m := range []struct {
			name string
			ctx  context.Context
		}{{"direct", direct}, {"handoff", bounded}} {
			b.Run(fc.name+"/"+m.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					call(b, m.ctx, fc.fn)
				}
			})
		}
	}
	b.Run("ping/interleaved", func(b *testing.B) {
		var d, h time.Duration
		n := 0
		for b.Loop() {
			t0 := time.Now()
			call(b, direct, ping)
			t1 := time.Now()
			call(b, bounded, ping)
			d, h = d+t1.Sub(t0), h+time.Since(t1)
			n++
		}
		b.ReportMetric(float64(d.Nanoseconds())/float64(n), "direct-ns/call")
		b.ReportMetric(float64(h.Nanoseconds())/float64(n), "handoff-ns/call")
		b.ReportMetric(float64(h-d)/float64(n), "extra-ns/call")
	})
}
