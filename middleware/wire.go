package middleware

import (
	"net/http"

	"github.com/google/wire"
	"google.golang.org/grpc"

	"github.com/lock4go/lock4go"
)

// HTTPSpec is the [Spec] of the HTTP middleware in a wire graph (a named
// type, so that it does not clash with other Specs).
type HTTPSpec Spec

// GRPCSpecs are the per-full-method Specs of the gRPC interceptors in a wire
// graph.
type GRPCSpecs map[string]Spec

// HTTPMiddleware is the type [ProvideHTTP] provides.
type HTTPMiddleware func(http.Handler) http.Handler

// ProvideHTTP is [NewHTTP] for wire.
func ProvideHTTP(tpl *lock4go.Template, spec HTTPSpec) (HTTPMiddleware, error) {
	mw, err := NewHTTP(tpl, Spec(spec))
	return HTTPMiddleware(mw), err
}

// ProvideUnary is [NewUnaryServerInterceptor] for wire.
func ProvideUnary(tpl *lock4go.Template, specs GRPCSpecs) (grpc.UnaryServerInterceptor, error) {
	return NewUnaryServerInterceptor(tpl, specs)
}

// ProvideStream is [NewStreamServerInterceptor] for wire.
func ProvideStream(tpl *lock4go.Template, specs GRPCSpecs) (grpc.StreamServerInterceptor, error) {
	return NewStreamServerInterceptor(tpl, specs)
}

// ProviderSet provides the HTTP middleware from an [HTTPSpec], and the gRPC
// interceptors from [GRPCSpecs], for a *lock4go.Template.
var ProviderSet = wire.NewSet(ProvideHTTP, ProvideUnary, ProvideStream)
