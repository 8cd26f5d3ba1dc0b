// Command demo is lock4go's main job: three instances of a "pay order"
// service share one lock backend (an embedded etcd server by default, so
// nothing needs installing), serve an HTTP endpoint behind the lock
// middleware and a gRPC method behind the lock interceptor, and take a load
// of concurrent payments for a handful of orders. It prints what it saw,
// shows a lock lost on purpose and detected, and exits non-zero if two
// payments of one order ever ran at once.
package main

import (
	"context"
	"flag"
	"fmt"
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
	flag.Parse()
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
	if cfg.clients <= 0 || cfg.requests <= 0 || cfg.orders <= 0 || cfg.work < 0 || cfg.acquireTimeout <= 0 {
		return fmt.Errorf("clients, requests, orders and acquire-timeout must be positive")
	}
	b, err := openBackend(cfg)
	if err != nil {
		return err
	}
	defer b.Close()
	fmt.Printf("lock4go demo on %s: 3 service instances, %d clients, %d payments for %d orders (HTTP and gRPC)\n\n",
		b.Describe(), cfg.clients, cfg.requests, cfg.orders)

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
	res, err := runLoad(ctx, cfg, svcs, st)
	if err != nil {
		return err
	}
	lost := showLostLock(ctx, b, svcs[0].tpl)
	printReport(res, st, lost)
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
