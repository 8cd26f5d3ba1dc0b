// Package kit holds what the built-in executors do alike and is not part
// of the executor contract: a group of background goroutines that Close
// waits for, and a doubling backoff for retry loops. Contract-level helpers
// (request checks, error classification, the lease safety margin) are in
// package executor.
package kit
