package mysql

import "time"

// SetBellTiming sets how long a wait call sleeps and how long the bell
// stays up without a waiter, and returns a function that restores them.
// Only for tests that run no executor in parallel.
func SetBellTiming(sleep, idle time.Duration) (restore func()) {
	s, i := bellSleep, bellIdle
	bellSleep, bellIdle = sleep, idle
	return func() { bellSleep, bellIdle = s, i }
}

// WakeLock returns the name of the named lock e's wake connection holds.
func WakeLock(e *Executor) string { return e.bell.name }
