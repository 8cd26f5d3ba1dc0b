package redis_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
)

// cmdStat is one line of INFO commandstats.
type cmdStat struct {
	calls    int64 // executed, failed or not
	usec     int64
	rejected int64 // refused before running (NOPERM, wrong arity, ...)
	failed   int64 // ran and returned an error
}

// commandStats parses INFO commandstats.
func commandStats(t *testing.T, c *goredis.Client) map[string]cmdStat {
	t.Helper()
	info, err := c.Info(t.Context(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	stats := make(map[string]cmdStat)
	for line := range strings.Lines(info) {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		var s cmdStat
		for field := range strings.SplitSeq(rest, ",") {
			k, v, _ := strings.Cut(field, "=")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "calls":
				s.calls = n
			case "usec":
				s.usec = n
			case "rejected_calls":
				s.rejected = n
			case "failed_calls":
				s.failed = n
			}
		}
		stats[strings.TrimPrefix(name, "cmdstat_")] = s
	}
	return stats
}

// clientSent are the commands a client sends itself per acquisition; the
// others in commandstats ran inside scripts, are CONFIG GET of New's
// start-up check, which may run late under load, or are the handshake of a
// connection the pool dials (HELLO, CLIENT SETINFO), which belongs to no
// acquisition: a busy machine makes the pool dial during the measurement.
var clientSent = map[string]bool{
	"evalsha": true, "eval": true, "subscribe": true, "unsubscribe": true, "ping": true,
}

// statsDelta returns after-before, and the calls a client sent itself.
func statsDelta(before, after map[string]cmdStat) (map[string]cmdStat, int64) {
	d := make(map[string]cmdStat)
	var sent int64
	for name, a := range after {
		b := before[name]
		if a.calls == b.calls || name == "info" {
			continue
		}
		d[name] = cmdStat{calls: a.calls - b.calls, usec: a.usec - b.usec}
		if clientSent[name] {
			sent += a.calls - b.calls
		}
	}
	return d, sent
}

func formatStats(d map[string]cmdStat, n int) string {
	names := make([]string, 0, len(d))
	for name := range d {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		s := d[name]
		fmt.Fprintf(&b, " %s=%.2f/acq (%.2fµs/call)", name, float64(s.calls)/float64(n), float64(s.usec)/float64(s.calls))
	}
	return b.String()
}

// TestCommandsPerAcquisition measures, from INFO commandstats, what one
// uncontended acquire+release costs the server: exactly two script calls.
// It also reports the server time of the raw SET NX PX + Lua delete pair.
func TestCommandsPerAcquisition(t *testing.T) {
	s := server(t)
	admin := newClient(t, s.Addr())
	c := newClient(t, s.Addr())
	e := newExecutor(t, c, redis.Options{})
	const n = 500
	key := uniq(t, "cmds:")
	pair := func() {
		l, err := e.Acquire(t.Context(), req(key, time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	pair() // load the scripts
	before := commandStats(t, admin)
	for range n {
		pair()
	}
	d, sent := statsDelta(before, commandStats(t, admin))
	t.Logf("executor, uncontended, %d pairs: %.2f client commands per acquisition;%s", n, float64(sent)/n, formatStats(d, n))
	if got := d["evalsha"].calls; got != 2*n || sent != 2*n {
		t.Fatalf("%d EVALSHA and %d client commands for %d acquisitions, want 2 per acquisition", got, sent, n)
	}

	raw := newClient(t, s.Addr())
	val := owner()
	_ = rawRelease.Run(t.Context(), raw, []string{key}, val).Err()
	before = commandStats(t, admin)
	for range n {
		raw.SetNX(t.Context(), key, val, time.Minute)
		rawRelease.Run(t.Context(), raw, []string{key}, val)
	}
	d, _ = statsDelta(before, commandStats(t, admin))
	t.Logf("raw SET NX PX + Lua delete, %d pairs:%s", n, formatStats(d, n))
}

// TestCommandsPerAcquisition_contended reports (without asserting: the
// Template's local queueing is what bounds it) the commands per acquisition
// when 64 goroutines of one executor wait for one key the way the
// conformance suite does: WatchRelease, Acquire, wait.
func TestCommandsPerAcquisition_contended(t *testing.T) {
	s := server(t)
	admin := newClient(t, s.Addr())
	for _, execs := range []int{1, 4} {
		t.Run(fmt.Sprintf("%dexecutors", execs), func(t *testing.T) {
			var es []*redis.Executor
			for range execs {
				es = append(es, newExecutor(t, newClient(t, s.Addr()), redis.Options{}))
			}
			key := uniq(t, "contended:")
			const waiters, rounds = 64, 5
			before := commandStats(t, admin)
			var wg sync.WaitGroup
			for i := range waiters {
				e := es[i%execs]
				wg.Go(func() {
					for range rounds {
						l, err := acquireWaiting(t.Context(), e, req(key, time.Minute))
						if err != nil {
							t.Error(err)
							return
						}
						if err := l.Release(t.Context()); err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			d, sent := statsDelta(before, commandStats(t, admin))
			n := waiters * rounds
			t.Logf("%d waiters over %d executors, no local queueing: %.2f client commands per acquisition;%s", waiters, execs, float64(sent)/float64(n), formatStats(d, n))
		})
	}
}

// acquireWaiting waits for a key as the Template does, without its local
// queue: watch, attempt, wait for the release or 100ms.
func acquireWaiting(ctx context.Context, e *redis.Executor, r executor.Request) (executor.Lease, error) {
	for {
		released, stop := e.WatchRelease(ctx, r.Key)
		l, err := e.Acquire(ctx, r)
		if err == nil || !errors.Is(err, executor.ErrNotAcquired) {
			stop()
			return l, err
		}
		r.Owner = owner()
		select {
		case <-released:
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
		}
		stop()
	}
}
