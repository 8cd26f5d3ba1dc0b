package keybuilder

import (
	"context"
	"net/http"
)

// HTTPFunc computes one key part from an HTTP request; register it with
// [WithHTTPFunc] and refer to it as func.<name>. It returns "" or an error
// when the part is missing; an error is wrapped into the builder's error, so
// return one wrapping executor.ErrInvalidKey for a bad request (400) and
// anything else for a server-side failure. It must be safe for concurrent
// use and must not consume r.Body.
type HTTPFunc func(r *http.Request) (string, error)

// GRPCFunc computes one key part from a gRPC call; register it with
// [WithGRPCFunc] and refer to it as func.<name>. req is the request message
// of a unary call and nil for a stream. Errors are handled as for
// [HTTPFunc]. It must be safe for concurrent use.
type GRPCFunc func(ctx context.Context, fullMethod string, req any) (string, error)
