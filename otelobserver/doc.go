// Package otelobserver reports lock4go events as OpenTelemetry metrics and,
// optionally, trace spans. Plug it into a Template with Config.Observer:
//
//	obs, err := otelobserver.New(otelobserver.Options{})
//	tpl, err := lock4go.New(lock4go.Config{Observer: obs}, execs...)
//
// Metrics (attributes lock4go.executor and lock4go.lock.name):
//
//   - lock4go.acquire.wait (histogram, s): time spent acquiring, with
//     lock4go.outcome = acquired | not_acquired | backend_error
//   - lock4go.acquire.attempts (histogram): attempts per acquisition
//   - lock4go.hold.duration (histogram, s): acquisition to release or loss
//   - lock4go.not_acquired, lock4go.lost, lock4go.expired (fixed leases
//     that ended before release), lock4go.renew.failures (counters)
//   - lock4go.held (up-down counter): locks held right now
//
// The lock name attribute is never the full key by default, which would make
// one time series per order id: it is the key up to its first '#' (the
// "<prefix>:<name>" of keys built by key builders and middleware), else up
// to its last ':' ("order:42" gives "order"), else "unnamed". Set
// Options.LockName to change that.
package otelobserver
