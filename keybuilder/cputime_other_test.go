//go:build !linux

package keybuilder_test

import "time"

// cpuPerOp returns the least wall time per call of f over rounds, each of
// at least minRound (no per-thread CPU clock here).
func cpuPerOp(f func(), rounds int, minRound time.Duration) time.Duration {
	best := time.Duration(-1)
	for range rounds {
		start := time.Now()
		n := 0
		for n == 0 || time.Since(start) < minRound {
			f()
			n++
		}
		if d := time.Since(start) / time.Duration(n); best < 0 || d < best {
			best = d
		}
	}
	return best
}
