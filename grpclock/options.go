package grpclock

import (
	"context"
	"fmt"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/keyexpr"
	"github.com/lock4go/lock4go/keybuilder"
)

// An Option configures [New].
type Option func(*options)

type options struct {
	failure    FailureHandler
	funcs      map[string]KeyFunc
	maxKeyLen  int
	maxPartLen int
	err        error
}

func buildOptions(opts []Option) (options, error) {
	o := options{maxKeyLen: keybuilder.DefaultMaxKeyLen, maxPartLen: keybuilder.DefaultMaxPartLen}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o, o.err
}

func (o *options) fail(format string, args ...any) {
	if o.err == nil {
		o.err = fmt.Errorf("grpclock: "+format+": %w", append(args, executor.ErrInvalidConfig)...)
	}
}

// KeyFunc computes one key part from a gRPC call; register it with
// [WithKeyFunc] and refer to it as func.<name>. req is the request message
// of a unary call and nil for a stream. It returns "" or an error when the
// part is missing; return an error wrapping executor.ErrInvalidKey for a
// bad request (InvalidArgument) and anything else for a server-side
// failure (Internal). It must be safe for concurrent use.
type KeyFunc func(ctx context.Context, fullMethod string, req any) (string, error)

// WithFailure sets the failure strategy of Specs without Failure. The
// default is [StatusFailure] logging to the Template's Logger.
func WithFailure(h FailureHandler) Option {
	return func(o *options) { o.failure = h }
}

// WithKeyFunc registers f as the key expression func.<name>.
func WithKeyFunc(name string, f KeyFunc) Option {
	return func(o *options) {
		if name == "" || f == nil {
			o.fail("WithKeyFunc needs a name and a function")
			return
		}
		if o.funcs == nil {
			o.funcs = make(map[string]KeyFunc)
		}
		o.funcs[name] = f
	}
}

// WithMaxKeyLen sets the longest key in bytes the interceptors may build,
// as keybuilder.WithMaxKeyLen does for HTTP (default
// [keybuilder.DefaultMaxKeyLen]): for a prefix and Spec name so long that
// their hashed keys need more. Keys longer than
// keybuilder.DefaultMaxKeyLen are hashed whatever n, so that every builder
// builds one key for the same parts. n must be in
// keybuilder.DefaultMaxKeyLen..1024 (lock4go.MaxKeyLen).
func WithMaxKeyLen(n int) Option {
	return func(o *options) {
		if n < keybuilder.DefaultMaxKeyLen || n > maxKeyLen {
			o.fail("max key length %d is not in %d..%d (keys longer than %d bytes are hashed whatever the limit, so that every builder builds one key)",
				n, keybuilder.DefaultMaxKeyLen, maxKeyLen, keybuilder.DefaultMaxKeyLen)
			return
		}
		o.maxKeyLen = n
	}
}

// maxKeyLen is the Template's own key length limit (lock4go.MaxKeyLen).
const maxKeyLen = keyexpr.MaxLen

// WithMaxPartLen sets the maximum length in bytes of one key part's raw
// value (default [keybuilder.DefaultMaxPartLen]); a longer part is a
// keybuilder.PartError, answered InvalidArgument. n must be positive.
func WithMaxPartLen(n int) Option {
	return func(o *options) {
		if n <= 0 {
			o.fail("max part length %d is not positive", n)
			return
		}
		o.maxPartLen = n
	}
}
