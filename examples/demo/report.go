package main

import (
	"fmt"
	"time"
)

func printReport(res *loadResult, st *stats, lost lostResult) {
	st.mu.Lock()
	defer st.mu.Unlock()
	row := func(k string, v any) { fmt.Printf("| %-40s | %14v |\n", k, v) }
	fmt.Printf("| %-40s | %14s |\n|%s|%s|\n", "load phase", "", "------------------------------------------", "----------------")
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
	fmt.Println()
	fmt.Printf("| %-40s | %14s |\n|%s|%s|\n", "lock lost on purpose", "", "------------------------------------------", "----------------")
	if lost.err != nil {
		row("result", "FAILED: "+lost.err.Error())
		return
	}
	row("holder's ctx cancelled after", round(lost.detectedAfter))
	row("cause is ErrLockLost", true)
	row("Release afterwards is ErrLockNotHeld", true)
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
