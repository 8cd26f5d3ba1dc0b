// Package lockdebug serves /debug/locks: what the lock4go Templates of this
// process are doing, for people (HTML, readable on a phone) and for scripts
// (?format=json), in the manner of net/http/pprof and expvar.
//
// Nothing is registered by importing the package; mount the handler
// yourself, on an internal port or behind your own authentication, since
// it names lock keys and backend errors:
//
//	mux.Handle("GET /debug/locks", lockdebug.Handler(tpl))
//
// The page shows, per Template: each executor's health, round-trip p50 and
// p99 over the last minute and error counts; the locks held (key,
// executor, kind, fencing token, the first 8 characters of the owner
// value, age, lease left, renewals and the latest renewal's round trip);
// the goroutines waiting per key in the local queue; and the latest
// failures (busy keys, backend errors, losses) with their reason and time.
// It holds no credentials and no request bodies: user information in URLs
// and password-like parameters in error texts are masked.
//
// Query parameters: format=json for JSON; refresh=N (1 to 3600) makes the
// HTML page reload itself every N seconds.
//
// The JSON is an object {"time", "templates": [...]}; each template has
// "executors", "held", "queues" and "failures" arrays whose fields are
// named like the columns of the page, durations in milliseconds with a
// "_ms" suffix and times in RFC 3339.
package lockdebug
