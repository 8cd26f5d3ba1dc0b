package postgres

import "time"

// SetListenTiming sets how often the LISTEN connection is pinged and how
// long it stays open without a waiter, and returns a function that
// restores them. Tests that call it must not run in parallel.
func SetListenTiming(ping, idle time.Duration) (restore func()) {
	oldPing, oldIdle := listenPing, listenIdle
	listenPing, listenIdle = ping, idle
	return func() { listenPing, listenIdle = oldPing, oldIdle }
}
