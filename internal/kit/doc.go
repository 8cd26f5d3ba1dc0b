// Package kit holds what the built-in executors do alike and is not part
// of the executor contract: a group of background goroutines that Close
// waits for, a doubling backoff for retry loops, and what every Close
// needs (the set of held leases, a lease's loss signal, bounded releases
// of many leases). Contract-level helpers (request checks, error
// classification, the lease safety margin) are in package executor.
package kit
