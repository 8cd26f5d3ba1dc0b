// Package lifecycle holds what an executor does between its New and its
// Close, alike for every executor: a [Group] of background goroutines
// that Close waits for and the [Backoff] of their retries, the closed
// signal ([Closed], and [Fired], the watch of a closed executor), and
// [IsNil], the check of a client New is given.
package lifecycle
