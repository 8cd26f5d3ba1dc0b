// Package leases holds what every executor's lease is made of and is not
// part of the executor contract: its local end as an atomic [Instant], its
// [Loss] (the functions waiting for it, its cause), the [Held] set that
// Close takes and ends with [EndAll], and the rounding of leases to whole
// milliseconds ([Millis]) of the backends that count them so.
package leases
