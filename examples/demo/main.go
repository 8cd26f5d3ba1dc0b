// Command demo is lock4go's main job: three instances of a "pay order"
// service share one lock backend (an embedded etcd server by default, so
// nothing needs installing), serve an HTTP endpoint behind the lock
// middleware and a gRPC method behind the lock interceptor, and take a load
// of concurrent payments for a handful of orders. It prints what it saw,
// shows a lock lost on purpose and detected, and exits non-zero if two
// payments of one order ever ran at once.
//
// While it runs, instance 1 serves /debug/locks on a port of its own (the
// demo prints the URL); --linger keeps the process alive a few seconds
// after the run, holding one order's lock with payments queued, so the page
// and the `lock4go inspect` line printed last have something to show.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.redis, "redis", "", "use the Redis server at `ADDR` instead of the embedded etcd")
	flag.StringVar(&cfg.zookeeper, "zookeeper", "", "use the ZooKeeper servers `ADDRS` (comma-separated) instead of the embedded etcd")
	flag.StringVar(&cfg.etcd, "etcd", "", "use the etcd `ENDPOINTS` (comma-separated) instead of the embedded etcd")
	flag.IntVar(&cfg.clients, "clients", 32, "concurrent clients")
	flag.IntVar(&cfg.requests, "requests", 1200, "payments to send")
	flag.IntVar(&cfg.orders, "orders", 5, "distinct order ids")
	flag.DurationVar(&cfg.work, "work", 2*time.Millisecond, "time a payment spends inside the lock")
	flag.DurationVar(&cfg.acquireTimeout, "acquire-timeout", 2*time.Second, "how long a payment waits for its order's lock before 429/Aborted")
	flag.Var(lingerFlag{&cfg.linger}, "linger", fmt.Sprintf("after the run, hold a lock and stay alive for a while (%v, or --linger=DURATION) to look at /debug/locks and run lock4go inspect", defaultLinger))
	flag.Parse()
	cfg.out = os.Stdout
	if err := run(context.Background(), cfg); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

type config struct {
	redis, zookeeper, etcd string
	clients, requests      int
	orders                 int
	work, acquireTimeout   time.Duration
	linger                 time.Duration
	out                    io.Writer // the report; nil: os.Stdout
	// whileLingering, when set (by tests), runs during the linger with the
	// /debug/locks URL.
	whileLingering func(debugURL string) error
}

func openBackend(cfg config) (backend, error) {
	switch {
	case cfg.redis != "":
		return newRedisBackend(cfg.redis)
	case cfg.zookeeper != "":
		return newZKBackend(cfg.zookeeper)
	default:
		return newEtcdBackend(cfg.etcd)
	}
}

func run(ctx context.Context, cfg config) error {
	if cfg.clients <= 0 || cfg.requests <= 0 || cfg.orders <= 0 || cfg.work < 0 || cfg.acquireTimeout <= 0 || cfg.linger < 0 {
		return fmt.Errorf("clients, requests, orders and acquire-timeout must be positive, work and linger not negative")
	}
	if cfg.out == nil {
		cfg.out = os.Stdout
	}
	b, err := openBackend(cfg)
	if err != nil {
		return err
	}
	defer b.Close()
	printIntro(cfg, b)
	st := newStats(cfg.orders, cfg.work)
	var svcs []*service
	defer func() {
		for _, s := range svcs {
			s.Close()
		}
	}()
	for range 3 {
		s, err := startService(b, paySpec(cfg), st.pay)
		if err != nil {
			return fmt.Errorf("start service: %w", err)
		}
		svcs = append(svcs, s)
	}
	dbg, err := startDebug(svcs[0].tpl)
	if err != nil {
		return fmt.Errorf("start /debug/locks: %w", err)
	}
	defer dbg.Close()
	printDebugURL(cfg, dbg.URL)
	res, err := runLoad(ctx, cfg, svcs, st)
	if err != nil {
		return err
	}
	lost := showLostLock(ctx, b, svcs[0].tpl)
	printReport(cfg, b, res, st, lost)
	if err := outcome(res, st, lost); err != nil {
		return err
	}
	if err := showJobs(ctx, cfg, svcs); err != nil {
		return err
	}
	if cfg.linger > 0 {
		return linger(ctx, cfg, b, svcs, dbg.URL)
	}
	printLingerHint(cfg, b)
	return nil
}

// outcome is the demo's verdict: an error if two payments of one order
// ran at once, a request failed unexpectedly, or the lost lock went
// unnoticed.
func outcome(res *loadResult, st *stats, lost lostResult) error {
	if n := st.overlaps.Load(); n != 0 {
		return fmt.Errorf("%d overlapping executions: mutual exclusion violated", n)
	}
	if res.failed != 0 {
		return fmt.Errorf("%d requests failed with unexpected errors (first: %v)", res.failed, res.firstErr)
	}
	if lost.err != nil {
		return fmt.Errorf("lost-lock demonstration: %w", lost.err)
	}
	return nil
}
