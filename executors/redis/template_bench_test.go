package redis_test

import (
	"context"
	"testing"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/redis"
)

// BenchmarkTemplate_LockRelease is one uncontended Template Lock+Release on
// Redis with the zero Config (a waiting request: acquire timeout 3 s) and a
// client with ContextTimeoutEnabled, the path most callers take. Its
// allocations are the Template's and the executor's together. Run with:
//
//	go test -run '^$' -bench Template_LockRelease -benchmem ./executors/redis/
func BenchmarkTemplate_LockRelease(b *testing.B) {
	benchmarkLockRelease(b, context.Background())
}

// BenchmarkTemplate_LockRelease_requestCtx is the same pair on a context
// that can be cancelled, as an HTTP request's: the attempt and the release
// each make a context of their own (on context.Background they share joint
// bounds).
func BenchmarkTemplate_LockRelease_requestCtx(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	benchmarkLockRelease(b, ctx)
}

func benchmarkLockRelease(b *testing.B, ctx context.Context) {
	e := newExecutor(b, newClient(b, server(b).Addr(), ctxTimeouts), redis.Options{})
	tpl, err := lock4go.New(lock4go.Config{}, e)
	if err != nil {
		b.Fatal(err)
	}
	key := uniq(b, "bench:tpl")
	b.ReportAllocs()
	for b.Loop() {
		l, err := tpl.Lock(ctx, key)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
