package leases

import "time"

// Millis returns d in whole milliseconds, rounded up and at least 1: what
// a backend that counts leases in milliseconds (Redis PX, PostgreSQL, a
// ShedLock table) is sent, so that it holds a lease at least as long as
// the Template counts it (cut down, 1.9ms would be held 1ms).
func Millis(d time.Duration) int64 {
	return max(int64((d+time.Millisecond-1)/time.Millisecond), 1)
}
