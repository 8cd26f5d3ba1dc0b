// Package middleware locks net/http handlers: the annotation-free
// counterpart of Lock4j's @Lock4j and LockInterceptor. (gRPC methods are
// locked by package grpclock, so that a net/http service links no gRPC.)
//
// A [Spec] carries the annotation's attributes (name, keys, expire, acquire
// timeout, executor, autoRelease) plus the failure strategy. [HTTP] wraps one
// handler.
//
// Per request:
//
//  1. the key <KeyPrefix>:<name>#<parts> is built by the keybuilder package
//     (KeyPrefix from the Template's Config; for ids that the handler parses
//     as numbers or bytes, use the "|int", "|float" or "|base64"
//     conversions described there);
//  2. the lock is taken with Template.Lock on the request's context;
//  3. if that fails, the failure strategy answers (by default 429 when the
//     key is busy, 503 when the backend is down, 400 naming the key part a
//     request lacks, 413 for a body too large to read for the key, 500
//     when the route is misconfigured, logged at Error once per route) and
//     the handler does not run;
//  4. otherwise the handler runs with a context that carries the lock (a
//     nested Template.Lock or Do on the same key re-enters it) and that is
//     cancelled, with cause lock4go.ErrLockLost, if the lock is lost;
//  5. when the handler returns, panics, or its client goes away, the lock is
//     released on a context detached from the request's, unless
//     Spec.KeepUntilExpire keeps it for its lease (a de-duplication window).
//
// No response is written after the handler has run, with one exception: an
// HTTP handler that panics before writing anything gets a 500 (see [HTTP]).
//
// The lock is held exactly while the handler the middleware wraps runs, so
// an http.TimeoutHandler, which returns at its timeout while the handler
// it wraps goes on, must wrap the middleware, not be wrapped by it (the
// middleware panics when asked to wrap one directly). Context-based
// timeouts are safe on either side. docs/guide.md of the repository,
// "Middleware order", shows how:
// https://github.com/lock4go/lock4go/blob/main/docs/guide.md#middleware-order
//
// Constructors come in pairs: [NewHTTP] returns an error wrapping
// lock4go.ErrInvalidConfig for a bad Spec (a malformed key expression, a
// negative duration); [HTTP] panics with it instead, for use at program
// start (chi style). Nothing panics per request.
//
// The middleware is safe for concurrent use.
package middleware
