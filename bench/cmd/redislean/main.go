// Command redislean measures what an uncontended Lock+Release costs one
// redis-server: server commands (INFO commandstats, scripts' calls
// included), server CPU (INFO cpu) and latency, for the raw SET NX +
// compare-and-delete floor, bsm/redislock and lock4go (a Template with the
// zero Config over a ContextTimeoutEnabled client), in alternating batches
// so that all see the same load. Point it at a server of its own:
//
//	redislean -addr 127.0.0.1:6399 -pairs 2000 -rounds 5
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bsm/redislock"
	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/redis"
)

// subject is one way to take and release a lock.
type subject struct {
	name string
	pair func(ctx context.Context, key string) error
}

// totals add up one subject's batches.
type totals struct {
	cmds, pairs int64
	cpu         float64 // seconds
	lat         []time.Duration
}

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "redis-server address (one of its own)")
	pairs := flag.Int("pairs", 2000, "pairs per batch")
	rounds := flag.Int("rounds", 5, "batches per subject, alternated")
	flag.Parse()
	ctx := context.Background()
	admin := goredis.NewClient(&goredis.Options{Addr: *addr})
	subjects, err := newSubjects(*addr)
	if err != nil {
		log.Fatal(err)
	}
	tot := make([]totals, len(subjects))
	for r := 0; r <= *rounds; r++ {
		for i, s := range subjects {
			key := "redislean:" + s.name
			n := *pairs
			if r == 0 {
				n = 100 // warm-up: scripts loaded, connections dialled
			}
			c0, u0 := serverCounts(ctx, admin)
			lat := make([]time.Duration, 0, n)
			for range n {
				t0 := time.Now()
				if err := s.pair(ctx, key); err != nil {
					log.Fatalf("%s: %v", s.name, err)
				}
				lat = append(lat, time.Since(t0))
			}
			c1, u1 := serverCounts(ctx, admin)
			if r > 0 {
				tot[i].cmds += c1 - c0 - 1 // the INFO commandstats of the first reading
				tot[i].cpu += u1 - u0
				tot[i].pairs += int64(n)
				tot[i].lat = append(tot[i].lat, lat...)
			}
		}
	}
	report(subjects, tot)
}

// report prints one line per subject, with its ratios to the floor and to
// bsm/redislock.
func report(subjects []subject, tot []totals) {
	mean := func(t totals) float64 {
		var s time.Duration
		for _, d := range t.lat {
			s += d
		}
		return float64(s.Microseconds()) / float64(len(t.lat))
	}
	p50 := func(t totals) float64 {
		s := slices.Clone(t.lat)
		slices.Sort(s)
		return float64(s[len(s)/2].Nanoseconds()) / 1000
	}
	fmt.Printf("%-14s %8s %10s %9s %9s %9s %9s\n", "subject", "cmds", "cpu µs", "p50 µs", "mean µs", "x-floor", "x-redislock")
	for i, s := range subjects {
		t := tot[i]
		fmt.Printf("%-14s %8.2f %10.1f %9.1f %9.1f %9.2f %11.2f\n", s.name,
			float64(t.cmds)/float64(t.pairs), t.cpu*1e6/float64(t.pairs),
			p50(t), mean(t), mean(t)/mean(tot[0]), mean(t)/mean(tot[1]))
	}
}

// newSubjects returns the floor, bsm/redislock and lock4go, each with a
// client of its own.
func newSubjects(addr string) ([]subject, error) {
	client := func() *goredis.Client {
		return goredis.NewClient(&goredis.Options{Addr: addr, ContextTimeoutEnabled: true})
	}
	raw := client()
	rl := redislock.New(client())
	e, err := redis.New(client(), redis.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	tpl, err := lock4go.New(lock4go.Config{Logger: slog.New(slog.DiscardHandler)}, e)
	if err != nil {
		return nil, err
	}
	release := goredis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`)
	return []subject{
		{"raw", func(ctx context.Context, key string) error {
			if !raw.SetNX(ctx, key, "owner", 30*time.Second).Val() {
				return errors.New("busy")
			}
			return release.Run(ctx, raw, []string{key}, "owner").Err()
		}},
		{"redislock", func(ctx context.Context, key string) error {
			l, err := rl.Obtain(ctx, key, 30*time.Second, nil)
			if err != nil {
				return err
			}
			return l.Release(ctx)
		}},
		{"lock4go", func(ctx context.Context, key string) error {
			l, err := tpl.Lock(ctx, key)
			if err != nil {
				return err
			}
			return l.Release(ctx)
		}},
	}, nil
}

// serverCounts returns the server's command count (every cmdstat's calls)
// and its CPU seconds (used_cpu_sys + used_cpu_user).
func serverCounts(ctx context.Context, c *goredis.Client) (cmds int64, cpu float64) {
	info, err := c.Info(ctx, "commandstats", "cpu").Result()
	if err != nil {
		log.Fatal(err)
	}
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "cmdstat_"); ok {
			_, stats, _ := strings.Cut(rest, ":")
			calls, _, _ := strings.Cut(strings.TrimPrefix(stats, "calls="), ",")
			n, _ := strconv.ParseInt(calls, 10, 64)
			cmds += n
		}
		for _, k := range []string{"used_cpu_sys:", "used_cpu_user:"} {
			if v, ok := strings.CutPrefix(line, k); ok {
				f, _ := strconv.ParseFloat(v, 64)
				cpu += f
			}
		}
	}
	return cmds, cpu
}
