package keybuilder_test

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is CLOCK_THREAD_CPUTIME_ID.
const clockThreadCPUTime = 3

// threadCPU returns the CPU time the calling thread has used, to the
// nanosecond: unlike the wall clock, it does not count the time other
// processes of a busy machine take the core (and unlike getrusage, it is
// not sampled at the scheduler's tick). The caller must lock its OS thread.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

// cpuPerOp returns the least thread CPU time per call of f over rounds,
// each of at least minRound of CPU time (and one call).
func cpuPerOp(f func(), rounds int, minRound time.Duration) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := time.Duration(-1)
	for range rounds {
		start := threadCPU()
		n := 0
		for n == 0 || threadCPU()-start < minRound {
			f()
			n++
		}
		if d := (threadCPU() - start) / time.Duration(n); best < 0 || d < best {
			best = d
		}
	}
	return best
}
