// Package kit holds what the Template and the built-in executors do alike
// and is not part of the executor contract: what a lease is made of (its
// local end as an atomic [Instant], its [Loss], the [Held] set that Close
// ends with [EndAll]); background work that Close waits for ([Group]) and
// the [Backoff] of its retries; and [Turns], the table by which callers of
// one process take turns per key. Contract-level helpers (request checks,
// error classification, the lease safety margin) are in package executor.
package kit
