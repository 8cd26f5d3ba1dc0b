// Package memory is an in-process lock4go executor: the same semantics as the
// networked executors (TTL expiry, renewal, owner-only release, release
// wake-up, strictly increasing fencing tokens, loss on expiry) for tests and
// for single-instance services. Locks live in the executor value; two
// executors, like two processes, do not see each other's locks unless they
// are the same value.
package memory
