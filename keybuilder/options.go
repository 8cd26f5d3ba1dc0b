package keybuilder

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/lock4go/lock4go/executor"
)

const (
	// DefaultMaxKeyLen is the default maximum key length in bytes; longer
	// keys are hashed (see the package documentation).
	DefaultMaxKeyLen = 512

	// DefaultMaxBodyBytes is the default maximum number of body bytes read
	// for json. and form. expressions.
	DefaultMaxBodyBytes = 1 << 20
)

// An Option configures a builder. Options that do not apply to a builder
// (WithGRPCFunc for an HTTP builder, for example) are ignored by it.
type Option func(*options)

type options struct {
	maxKeyLen    int
	maxBodyBytes int64
	trusted      []netip.Prefix
	httpFuncs    map[string]HTTPFunc
	grpcFuncs    map[string]GRPCFunc
	err          error
}

func buildOptions(opts []Option) (options, error) {
	o := options{maxKeyLen: DefaultMaxKeyLen, maxBodyBytes: DefaultMaxBodyBytes}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o, o.err
}

func (o *options) fail(format string, args ...any) {
	if o.err == nil {
		o.err = fmt.Errorf("keybuilder: "+format+": %w", append(args, executor.ErrInvalidConfig)...)
	}
}

// WithMaxKeyLen sets the maximum key length in bytes (default
// [DefaultMaxKeyLen]); longer keys are replaced by their hashed form. n must
// leave room for the prefix, the escaped name and 66 bytes of hash, and
// should not exceed the Template's own limit (lock4go.MaxKeyLen, 1024), which
// rejects longer keys.
func WithMaxKeyLen(n int) Option {
	return func(o *options) {
		if n <= 0 {
			o.fail("max key length %d is not positive", n)
			return
		}
		o.maxKeyLen = n
	}
}

// WithMaxBodyBytes sets how many body bytes json. and form. expressions read
// at most (default [DefaultMaxBodyBytes]). A longer body is an error wrapping
// executor.ErrInvalidKey.
func WithMaxBodyBytes(n int64) Option {
	return func(o *options) {
		if n <= 0 {
			o.fail("max body bytes %d is not positive", n)
			return
		}
		o.maxBodyBytes = n
	}
}

// WithTrustedProxies makes the ip expression believe X-Forwarded-For (or,
// without it, X-Real-IP) when the request comes from one of these networks,
// given in CIDR notation ("10.0.0.0/8") or as single addresses. Without it
// the ip expression is the host of r.RemoteAddr and forwarding headers are
// ignored, so clients cannot choose their own key.
func WithTrustedProxies(cidrs ...string) Option {
	return func(o *options) {
		for _, c := range cidrs {
			c = strings.TrimSpace(c)
			var p netip.Prefix
			var err error
			if strings.Contains(c, "/") {
				p, err = netip.ParsePrefix(c)
			} else {
				var a netip.Addr
				a, err = netip.ParseAddr(c)
				if err == nil {
					a = a.Unmap()
					p = netip.PrefixFrom(a, a.BitLen())
				}
			}
			if err != nil {
				o.fail("trusted proxy %q: %v", c, err)
				return
			}
			if p.Addr().Is4In6() {
				p = netip.PrefixFrom(p.Addr().Unmap(), max(p.Bits()-96, 0))
			}
			o.trusted = append(o.trusted, p.Masked())
		}
	}
}

// WithHTTPFunc registers f as the HTTP expression func.<name>.
func WithHTTPFunc(name string, f HTTPFunc) Option {
	return func(o *options) {
		if name == "" || f == nil {
			o.fail("WithHTTPFunc needs a name and a function")
			return
		}
		if o.httpFuncs == nil {
			o.httpFuncs = make(map[string]HTTPFunc)
		}
		o.httpFuncs[name] = f
	}
}

// WithGRPCFunc registers f as the gRPC expression func.<name>.
func WithGRPCFunc(name string, f GRPCFunc) Option {
	return func(o *options) {
		if name == "" || f == nil {
			o.fail("WithGRPCFunc needs a name and a function")
			return
		}
		if o.grpcFuncs == nil {
			o.grpcFuncs = make(map[string]GRPCFunc)
		}
		o.grpcFuncs[name] = f
	}
}
