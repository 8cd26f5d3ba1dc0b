package middleware

import (
	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/failure"
	"github.com/lock4go/lock4go/keybuilder"
)

// An Option configures a middleware or interceptor.
type Option func(*options)

type options struct {
	keyOpts     []keybuilder.Option
	httpFailure failure.HTTPHandler
	grpcFailure failure.GRPCHandler
}

func buildOptions(tpl *lock4go.Template, opts []Option) options {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if tpl != nil {
		logger := tpl.Config().Logger
		if o.httpFailure == nil {
			o.httpFailure = failure.HTTPStatus(failure.HTTPOptions{Logger: logger})
		}
		if o.grpcFailure == nil {
			o.grpcFailure = failure.GRPCStatus(failure.GRPCOptions{Logger: logger})
		}
	}
	return o
}

// WithKeyOptions passes options to the key builders: trusted proxies,
// func.<name> expressions, the key length cap, the body limit.
func WithKeyOptions(opts ...keybuilder.Option) Option {
	return func(o *options) { o.keyOpts = append(o.keyOpts, opts...) }
}

// WithHTTPFailure sets the failure strategy of Specs without HTTPFailure.
// The default is failure.HTTPStatus logging to the Template's Logger.
func WithHTTPFailure(h failure.HTTPHandler) Option {
	return func(o *options) { o.httpFailure = h }
}

// WithGRPCFailure sets the failure strategy of Specs without GRPCFailure.
// The default is failure.GRPCStatus logging to the Template's Logger.
func WithGRPCFailure(h failure.GRPCHandler) Option {
	return func(o *options) { o.grpcFailure = h }
}
