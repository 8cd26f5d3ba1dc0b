package middleware

import (
	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/failure"
	"github.com/lock4go/lock4go/keybuilder"
)

// An Option configures a middleware.
type Option func(*options)

type options struct {
	keyOpts []keybuilder.Option
	failure failure.HTTPHandler
}

func buildOptions(tpl *lock4go.Template, opts []Option) options {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.failure == nil && tpl != nil {
		o.failure = failure.HTTPStatus(failure.HTTPOptions{Logger: tpl.Config().Logger})
	}
	return o
}

// WithKeyOptions passes options to the key builders: trusted proxies,
// func.<name> expressions, the key and part length caps, the body limit.
func WithKeyOptions(opts ...keybuilder.Option) Option {
	return func(o *options) { o.keyOpts = append(o.keyOpts, opts...) }
}

// WithFailure sets the failure strategy of a Spec without Failure. The
// default is failure.HTTPStatus logging to the Template's Logger.
func WithFailure(h failure.HTTPHandler) Option {
	return func(o *options) { o.failure = h }
}
