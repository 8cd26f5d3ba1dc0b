package etcd

import "time"

// SetPollAfter replaces e's predecessor read schedule (nil: none), for
// benchmarks that compare it; call it before e is used.
func SetPollAfter(e *Executor, d []time.Duration) { e.pollAfter = d }

// AcquireErr exposes acquireErr, the classification of a failed acquire
// round trip.
var AcquireErr = acquireErr
