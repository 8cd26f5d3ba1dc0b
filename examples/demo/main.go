// Command demo runs lock4go under load and prints what it saw: three service
// instances (three Templates) share one lock backend and many goroutines pay
// a handful of orders concurrently. Every payment checks that nobody else is
// inside the same order's critical section; the demo exits non-zero if any
// two ever were.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
)

func main() {
	var (
		workers  = flag.Int("workers", 64, "concurrent clients")
		requests = flag.Int("requests", 3000, "payments to attempt")
		orders   = flag.Int("orders", 5, "distinct order ids")
		timeout  = flag.Duration("acquire-timeout", 250*time.Millisecond, "how long a payment waits for its order's lock")
		work     = flag.Duration("work", 300*time.Microsecond, "time spent inside the lock")
	)
	flag.Parse()
	if err := run(*workers, *requests, *orders, *timeout, *work); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(workers, requests, orders int, timeout, work time.Duration) error {
	backend := memory.New(memory.Options{})
	var instances []*lock4go.Template
	for range 3 {
		tpl, err := lock4go.New(lock4go.Config{AcquireTimeout: timeout, RetryInterval: 10 * time.Millisecond}, backend)
		if err != nil {
			return err
		}
		instances = append(instances, tpl)
	}
	var (
		inside   = make([]atomic.Int32, orders)
		overlaps atomic.Int64
		executed atomic.Int64
		rejected atomic.Int64
		failed   atomic.Int64
		next     atomic.Int64
		mu       sync.Mutex
		waits    []time.Duration
		wg       sync.WaitGroup
	)
	ctx := context.Background()
	start := time.Now()
	for w := range workers {
		tpl := instances[w%len(instances)]
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(requests) {
					return
				}
				order := int(i) % orders
				began := time.Now()
				err := tpl.Do(ctx, fmt.Sprintf("demo:pay#order-%d", order), func(context.Context) error {
					waited := time.Since(began)
					if inside[order].Add(1) != 1 {
						overlaps.Add(1)
					}
					time.Sleep(work)
					inside[order].Add(-1)
					executed.Add(1)
					mu.Lock()
					waits = append(waits, waited)
					mu.Unlock()
					return nil
				})
				switch {
				case errors.Is(err, lock4go.ErrNotAcquired):
					rejected.Add(1)
				case err != nil:
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(waits)
	fmt.Printf("lock4go demo: %d clients, %d orders, 3 instances on the memory executor\n\n", workers, orders)
	fmt.Printf("| %-28s | %12s |\n|%s|%s|\n", "metric", "value", "------------------------------", "--------------")
	row := func(k string, v any) { fmt.Printf("| %-28s | %12v |\n", k, v) }
	row("requests", requests)
	row("executed", executed.Load())
	row("rejected (busy)", rejected.Load())
	row("failed (other errors)", failed.Load())
	row("overlapping executions", overlaps.Load())
	row("wait p50", pct(waits, 50))
	row("wait p99", pct(waits, 99))
	row("elapsed", elapsed.Round(time.Millisecond))
	row("executions/s", int(float64(executed.Load())/elapsed.Seconds()))
	if overlaps.Load() != 0 {
		return fmt.Errorf("%d overlapping executions: mutual exclusion violated", overlaps.Load())
	}
	if failed.Load() != 0 {
		return fmt.Errorf("%d payments failed with unexpected errors", failed.Load())
	}
	return nil
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)-1)*p/100].Round(time.Microsecond)
}
