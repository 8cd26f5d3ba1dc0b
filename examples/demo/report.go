package main

import (
	"fmt"
	"time"
)

// printIntro says what the demo is about to show.
func printIntro(cfg config, b backend) {
	fmt.Fprintf(cfg.out, "lock4go demo on %s: 3 service instances, %d clients, %d payments for %d orders (HTTP and gRPC)\n\n",
		b.Describe(), cfg.clients, cfg.requests, cfg.orders)
	fmt.Fprintln(cfg.out, "It shows that the payments of one order never run at once, whichever of 3 instances of a service takes them")
	fmt.Fprintln(cfg.out, "(HTTP behind the lock middleware, gRPC behind the lock interceptor, one lock per order id), and that a")
	fmt.Fprintf(cfg.out, "holder whose lock disappears from the backend is told so within a third of its lease (%v here) and a round trip.\n", lease)
	fmt.Fprintln(cfg.out)
}

// printDebugURL prints where instance 1's /debug/locks is, and for how long.
func printDebugURL(cfg config, url string) {
	fmt.Fprintf(cfg.out, "Instance 1's /debug/locks: %s\n", url)
	if cfg.linger > 0 {
		fmt.Fprintf(cfg.out, "  (up while the demo runs, and %v after the run: --linger)\n\n", cfg.linger)
		return
	}
	fmt.Fprintf(cfg.out, "  (up only while the demo runs; `make demo DEMOFLAGS=--linger` keeps it up %v after the run)\n\n", defaultLinger)
}

// printReport prints the load phase and the lost lock, each after a
// sentence that says what it shows.
func printReport(cfg config, b backend, res *loadResult, st *stats, lost lostResult) {
	st.mu.Lock()
	defer st.mu.Unlock()
	w := cfg.out
	row := func(k string, v any) { fmt.Fprintf(w, "| %-40s | %14v |\n", k, v) }
	head := func(k string) {
		fmt.Fprintf(w, "| %-40s | %14s |\n|%s|%s|\n", k, "", "------------------------------------------", "----------------")
	}
	fmt.Fprintf(w, "Load: %d clients sent %d payments for %d orders to the 3 instances at once; the payments of each order\n", cfg.clients, res.requests, cfg.orders)
	fmt.Fprintln(w, "took turns through the order's lock, so \"overlapping executions\" must be 0.")
	head("load phase")
	row("requests", res.requests)
	row("executed (HTTP 204 / gRPC OK)", fmt.Sprintf("%d / %d", res.executedHTTP, res.executedGRPC))
	row("rejected busy (HTTP 429 / gRPC Aborted)", fmt.Sprintf("%d / %d", res.rejectedHTTP, res.rejectedGRPC))
	row("failed otherwise", res.failed)
	row("overlapping executions (must be 0)", st.overlaps.Load())
	row("wait for the lock p50", round(percentile(st.waits, 50)))
	row("wait for the lock p99", round(percentile(st.waits, 99)))
	row("hand-off p50 (holder left → next inside)", round(percentile(st.handoffs, 50)))
	row("hand-off p99", round(percentile(st.handoffs, 99)))
	row("payments/s", int(float64(st.executed.Load())/res.elapsed.Seconds()))
	row("elapsed", round(res.elapsed))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Lost lock: instance 1 took %s, and the demo deleted it behind the holder's back:\n", lostKey)
	fmt.Fprintf(w, "it %s. The holder's context must be\n", b.StealNote())
	fmt.Fprintln(w, "cancelled with ErrLockLost, and its Release must say ErrLockNotHeld.")
	head("lock lost on purpose")
	if lost.err != nil {
		row("result", "FAILED: "+lost.err.Error())
		return
	}
	row("holder's ctx cancelled after", round(lost.detectedAfter))
	row("a third of the lease", round(lease/3))
	row("cause is ErrLockLost", true)
	row("Release afterwards is ErrLockNotHeld", true)
}

// printLingerHint ends a run without --linger: the URL printed at the
// start is gone, and how to keep it.
func printLingerHint(cfg config, b backend) {
	fmt.Fprintf(cfg.out, "\nThe demo has ended, and its /debug/locks with it. `make demo DEMOFLAGS=--linger` keeps it alive %v\n", defaultLinger)
	fmt.Fprintf(cfg.out, "after the run, holding %s with payments queued: look at the page then, or read the lock\n", lingerKey)
	fmt.Fprintln(cfg.out, "from the backend with:")
	fmt.Fprintln(cfg.out, inspectLine(b))
}

func round(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(time.Millisecond)
	case d > time.Millisecond:
		return d.Round(10 * time.Microsecond)
	default:
		return d.Round(time.Microsecond)
	}
}
