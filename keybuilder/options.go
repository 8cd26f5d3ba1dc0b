package keybuilder

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	"github.com/lock4go/lock4go/executor"
)

const (
	// DefaultMaxKeyLen is the length in bytes above which every builder
	// ([HTTP], [Fields], [Join], package grpclock) replaces a key by its
	// hashed form, a prefix and name and a SHA-256: the same length for
	// all, so that one prefix, name and parts give one key whoever builds
	// it. It is below the Template's hard limit (lock4go.MaxKeyLen, 1024),
	// which refuses longer keys whoever built them, so that the names a
	// backend derives from a key (fencing counters, void markers, escaped
	// node paths) stay short. It is also the default longest key a
	// builder may build; [WithMaxKeyLen] raises that for long names.
	DefaultMaxKeyLen = 512

	// DefaultMaxPartLen is the default maximum length in bytes of one key
	// part's raw value, before escaping: a longer part is a [PartError]
	// (400), never a key. Parts below it but too long for a key are
	// escaped straight into the hash of the key. [WithMaxPartLen] changes
	// it.
	DefaultMaxPartLen = 64 << 10

	// DefaultMaxBodyBytes is the default maximum number of body bytes read
	// for json. and form. expressions, and for query. expressions beside a
	// form or JSON body.
	DefaultMaxBodyBytes = 1 << 20

	// DefaultClientIPHeader is the forwarding header the ip expression reads
	// from trusted proxies unless [WithClientIPHeader] names another.
	DefaultClientIPHeader = "X-Forwarded-For"

	// maxKeyLen is the Template's own key length limit (lock4go.MaxKeyLen);
	// a test keeps the two equal.
	maxKeyLen = 1024
)

// An Option configures a builder. Options that do not apply to a builder
// (WithTrustedProxies for [Fields], for example) are ignored by it.
type Option func(*options)

type options struct {
	maxKeyLen    int
	maxPartLen   int
	maxBodyBytes int64
	trusted      []netip.Prefix
	ipHeader     string
	httpFuncs    map[string]HTTPFunc
	err          error
}

func buildOptions(opts []Option) (options, error) {
	o := options{
		maxKeyLen: DefaultMaxKeyLen, maxPartLen: DefaultMaxPartLen,
		maxBodyBytes: DefaultMaxBodyBytes, ipHeader: DefaultClientIPHeader,
	}
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

// WithMaxKeyLen sets the longest key in bytes the builder may build
// (default [DefaultMaxKeyLen]), for a prefix and name so long that their
// hashed keys need more than DefaultMaxKeyLen bytes: n must leave room for
// the prefix, the escaped name and 66 bytes of hash. It does not change
// which keys are hashed (those longer than DefaultMaxKeyLen, whatever n):
// a builder with another limit builds the same key for the same parts, so
// the two exclude each other. n must be in DefaultMaxKeyLen..1024 (the
// Template's own limit, lock4go.MaxKeyLen); another n is a construction
// error.
func WithMaxKeyLen(n int) Option {
	return func(o *options) {
		if n < DefaultMaxKeyLen || n > maxKeyLen {
			o.fail("max key length %d is not in %d..%d (keys longer than %d bytes are hashed whatever the limit, so that every builder builds one key)",
				n, DefaultMaxKeyLen, maxKeyLen, DefaultMaxKeyLen)
			return
		}
		o.maxKeyLen = n
	}
}

// WithMaxPartLen sets the maximum length in bytes of one key part's raw
// value (default [DefaultMaxPartLen]); a longer part is a [PartError]
// wrapping executor.ErrInvalidKey. n must be positive.
func WithMaxPartLen(n int) Option {
	return func(o *options) {
		if n <= 0 {
			o.fail("max part length %d is not positive", n)
			return
		}
		o.maxPartLen = n
	}
}

// WithMaxBodyBytes sets how many body bytes json. and form. expressions, and
// query. expressions beside a form or JSON body, read at most (default
// [DefaultMaxBodyBytes]). A longer body is an error wrapping
// executor.ErrInvalidKey whose chain holds an *http.MaxBytesError, as an
// outer http.MaxBytesReader's does: failure.HTTPStatus answers it 413.
func WithMaxBodyBytes(n int64) Option {
	return func(o *options) {
		if n <= 0 {
			o.fail("max body bytes %d is not positive", n)
			return
		}
		o.maxBodyBytes = n
	}
}

// WithTrustedProxies makes the ip expression believe the forwarding header
// (X-Forwarded-For unless [WithClientIPHeader] names another) when the
// request comes from one of these networks, given in CIDR notation
// ("10.0.0.0/8") or as single addresses. The header's entries are read from
// the nearest back, skipping trusted addresses; the first untrusted one is
// the client. Without it the ip expression is the host of r.RemoteAddr and
// forwarding headers are ignored, so clients cannot choose their own key.
// Clients inside a trusted network can still name any address.
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

// WithClientIPHeader names the one header the ip expression reads from
// trusted proxies (see [WithTrustedProxies]), for proxies that set
// "X-Real-IP" or another header instead of X-Forwarded-For. Only that header
// is read: a proxy that sets X-Real-IP but passes the client's own
// X-Forwarded-For through would otherwise let clients pick their key.
func WithClientIPHeader(name string) Option {
	return func(o *options) {
		if !validToken(name) {
			o.fail("client IP header %q is not a header name", name)
			return
		}
		o.ipHeader = http.CanonicalHeaderKey(name)
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
