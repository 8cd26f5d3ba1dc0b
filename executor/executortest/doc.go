// Package executortest is the conformance suite every lock4go executor
// passes. An executor package calls [Run] from one test with a [Factory]
// that returns a fresh executor (with its own client, so several of them act
// like several processes) and the [Options] that describe its lease model.
//
// The suite checks, against the real backend: mutual exclusion under 64
// goroutines spread over several executors, owner-only release, release and
// renewal after expiry, expiry freeing the key, renewal keeping it, strictly
// increasing fencing tokens, wake-up latency, context cancellation while
// waiting leaving nothing behind, concurrent use of many keys, and the
// Close contract of package executor (calls after Close, waiters, and held
// leases reported lost and released).
package executortest
