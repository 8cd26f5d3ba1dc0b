//go:build !linux

package keybuilder_test

import "time"

// cpuPerOp returns the least wall time per call of f over rounds of n
// calls each (no per-thread CPU clock here).
func cpuPerOp(f func(), rounds, n int) time.Duration {
	best := time.Duration(-1)
	for range rounds {
		start := time.Now()
		for range n {
			f()
		}
		if d := time.Since(start) / time.Duration(n); best < 0 || d < best {
			best = d
		}
	}
	return best
}
