package keybuilder_test

import (
	"runtime"
	"syscall"
	"time"
)

// threadCPU returns the CPU time the calling thread has used: unlike the
// wall clock, it does not count the time other processes of a busy
// machine take the core. The caller must lock its OS thread.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuPerOp returns the least thread CPU time per call of f over rounds of
// n calls each.
func cpuPerOp(f func(), rounds, n int) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := time.Duration(-1)
	for range rounds {
		start := threadCPU()
		for range n {
			f()
		}
		if d := (threadCPU() - start) / time.Duration(n); best < 0 || d < best {
			best = d
		}
	}
	return best
}
