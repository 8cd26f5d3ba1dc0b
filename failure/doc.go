// Package failure decides what an HTTP client gets when a lock was not
// obtained: Lock4j's LockFailureStrategy, without annotations. (gRPC's
// strategies, with status codes, are in package grpclock, so that a
// net/http service links no gRPC.)
//
// The outcome is classified by [Classify] from the sentinel errors:
//
//	ErrNotAcquired                 busy          HTTP 429 + Retry-After   gRPC Aborted
//	ErrBackend, ErrUnknownExecutor unavailable   HTTP 503                 gRPC Unavailable
//	ErrInvalidKey                  invalid key   HTTP 400 (413)           gRPC InvalidArgument
//	ErrInvalidConfig               misconfigured HTTP 500                 gRPC Internal
//	anything else                  internal      HTTP 500                 gRPC Internal
//
// [HTTPStatus] applies that table with plain-text bodies: Lock4j's
// "request failed, please retry it." ([DefaultMessage]) by default, the
// name of the missing or invalid key part for a 400 ([PublicMessage]; 413
// when the body was too large to read for the key, an *http.MaxBytesError
// in the chain), and [MisconfiguredMessage] for a misconfiguration. The error itself is
// logged with slog and never sent to the client. [HTTPFallback] calls
// another handler instead; [HTTPHandlerFunc] adapts any function. A
// fallback handler finds the failure with [FromContext].
//
// All handlers in this package are safe for concurrent use.
package failure
