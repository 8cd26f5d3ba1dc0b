// Package failure decides what a caller gets when a lock was not obtained:
// Lock4j's LockFailureStrategy, without annotations.
//
// The outcome is classified by [Classify] from the sentinel errors:
//
//	ErrNotAcquired                 busy        HTTP 429 + Retry-After   gRPC Aborted
//	ErrBackend, ErrUnknownExecutor unavailable HTTP 503                 gRPC Unavailable
//	ErrInvalidKey                  invalid key HTTP 400                 gRPC InvalidArgument
//	anything else (ErrInvalidConfig, a key builder misconfigured)
//	                               internal    HTTP 500                 gRPC Internal
//
// [HTTPStatus] and [GRPCStatus] apply that table with a generic message,
// Lock4j's "request failed, please retry it." by default: the error itself
// is logged with slog and never sent to the client. [HTTPFallback] and
// [GRPCFallback] call another handler instead; [FailFast] returns the error
// as is; [HTTPHandlerFunc] and [GRPCHandlerFunc] adapt any function. A fallback
// handler finds the failure with [FromContext].
//
// All handlers in this package are safe for concurrent use.
package failure
