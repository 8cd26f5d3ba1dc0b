package bench

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go"
	lredis "github.com/lock4go/lock4go/executors/redis"
)

// BenchmarkClientMode compares an uncontended Template Lock+Release on Redis
// over a go-redis client built with default options and over one with
// ContextTimeoutEnabled, with the raw floor (SET NX PX + compare-and-delete).
// Each op is one pair of each, in a new random order, so that all three see
// the same load; it reports the mean pair of each and the ratios of the
// means to the floor's. With -benchtime 2000x each line is one batch of 2000
// pairs:
//
//	go test -run '^$' -bench ClientMode -benchtime 2000x -count 6 ./bench/
func BenchmarkClientMode(b *testing.B) {
	env, _ := catalog(b)
	quiet := slog.New(slog.DiscardHandler)
	client := func(cte bool) *goredis.Client {
		c := goredis.NewClient(&goredis.Options{Addr: env.RedisAddr, ContextTimeoutEnabled: cte})
		b.Cleanup(func() { _ = c.Close() })
		return c
	}
	template := func(c *goredis.Client) Locker {
		e, err := lredis.New(c, lredis.Options{Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = e.Close() })
		t, err := lock4go.New(lock4go.Config{Logger: quiet}, e)
		if err != nil {
			b.Fatal(err)
		}
		return templateLocker(t)
	}
	raw := client(false)
	subjects := []struct {
		metric string
		l      Locker
		key    string
	}{
		{"floor", LockerFunc(func(ctx context.Context, key string) (Unlock, error) { return setNX(ctx, raw, key) }), "clientmode:floor"},
		{"default", template(client(false)), "clientmode:default"},
		{"cte", template(client(true)), "clientmode:cte"},
	}
	for _, s := range subjects {
		for range 200 { // connections, scripts, workers
			if err := pair(b.Context(), s.l, s.key); err != nil {
				b.Fatal(s.metric, err)
			}
		}
	}
	sum := make([]time.Duration, len(subjects))
	n := 0
	for b.Loop() {
		for _, i := range rand.Perm(len(subjects)) {
			s := subjects[i]
			t0 := time.Now()
			if err := pair(b.Context(), s.l, s.key); err != nil {
				b.Fatal(s.metric, err)
			}
			sum[i] += time.Since(t0)
		}
		n++
	}
	for i, s := range subjects {
		b.ReportMetric(float64(sum[i].Nanoseconds())/float64(n), s.metric+"-ns/pair")
		if i > 0 {
			b.ReportMetric(float64(sum[i])/float64(sum[0]), s.metric+"-x-floor")
		}
	}
}
