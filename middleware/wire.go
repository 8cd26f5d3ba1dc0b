package middleware

import (
	"net/http"

	"github.com/google/wire"

	"github.com/lock4go/lock4go"
)

// HTTPSpec is the [Spec] of the HTTP middleware in a wire graph (a named
// type, so that it does not clash with other Specs).
type HTTPSpec Spec

// HTTPMiddleware is the type [ProvideHTTP] provides.
type HTTPMiddleware func(http.Handler) http.Handler

// ProvideHTTP is [NewHTTP] for wire.
func ProvideHTTP(tpl *lock4go.Template, spec HTTPSpec) (HTTPMiddleware, error) {
	mw, err := NewHTTP(tpl, Spec(spec))
	return HTTPMiddleware(mw), err
}

// ProviderSet provides the HTTP middleware from an [HTTPSpec] for a
// *lock4go.Template. The gRPC interceptors have their own set,
// grpclock.ProviderSet.
var ProviderSet = wire.NewSet(ProvideHTTP)
