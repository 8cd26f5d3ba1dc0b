package keybuilder

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"github.com/lock4go/lock4go/executor"
)

var grpcKinds = map[string]kind{
	"req": kindReq, "md": kindMD, "method": kindMethod, "ip": kindIP, "func": kindFunc,
}

// GRPC builds lock keys for gRPC calls from key expressions. It is immutable
// and safe for concurrent use.
type GRPC struct {
	prefix  string
	name    string
	exprs   []expr
	funcs   []GRPCFunc
	opts    options
	readReq bool
}

// NewGRPC returns a builder of keys <prefix>:<name>#<part>:<part>… whose
// parts are the values of exprs, in order (see the package documentation for
// the expressions). An empty name means the call's full method. A malformed
// expression, an unknown func.<name> or a bad option is an error wrapping
// executor.ErrInvalidConfig.
func NewGRPC(prefix, name string, exprs []string, opts ...Option) (*GRPC, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	b := &GRPC{prefix: prefix, name: name, opts: o}
	if name != "" {
		if err := checkName(prefix, name, o.maxKeyLen); err != nil {
			return nil, err
		}
	}
	for _, src := range exprs {
		e, err := parseExpr(src, grpcKinds)
		if err != nil {
			return nil, err
		}
		var f GRPCFunc
		switch e.kind {
		case kindReq:
			for _, seg := range e.path {
				if !validIdent(seg) {
					return nil, fmt.Errorf("keybuilder: expression %q: %q is not a field name: %w", src, seg, executor.ErrInvalidConfig)
				}
			}
			b.readReq = true
		case kindMD:
			e.arg = strings.ToLower(e.arg)
		case kindFunc:
			f = o.grpcFuncs[e.arg]
			if f == nil {
				return nil, fmt.Errorf("keybuilder: expression %q: no function registered with WithGRPCFunc(%q, …): %w",
					src, e.arg, executor.ErrInvalidConfig)
			}
		}
		b.exprs = append(b.exprs, e)
		b.funcs = append(b.funcs, f)
	}
	return b, nil
}

// ReadsRequest reports whether some expression reads the request message
// (req.<field>). A stream interceptor locks before any message is received,
// so it cannot use such a builder.
func (b *GRPC) ReadsRequest() bool { return b.readReq }

// Key builds the key of a call to fullMethod with request message req (nil
// for a stream). It returns an error wrapping executor.ErrInvalidKey when a
// part is missing or empty (naming the expression) and
// executor.ErrInvalidConfig when an expression does not fit the request type.
func (b *GRPC) Key(ctx context.Context, fullMethod string, req any) (string, error) {
	name := b.name
	if name == "" {
		name = fullMethod
	}
	var buf [8]string
	parts := buf[:0]
	var md metadata.MD
	for i := range b.exprs {
		e := &b.exprs[i]
		var v string
		var err error
		switch e.kind {
		case kindReq:
			v, err = protoField(req, e.path)
		case kindMD:
			if md == nil {
				md, _ = metadata.FromIncomingContext(ctx)
			}
			if vs := md[e.arg]; len(vs) > 0 {
				v = vs[0]
			}
		case kindMethod:
			v = fullMethod
		case kindIP:
			if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
				v = p.Addr.String()
				if h, _, err := net.SplitHostPort(v); err == nil {
					v = h
				}
				if a, err := netip.ParseAddr(v); err == nil {
					v = a.Unmap().String() // one key per client on dual-stack listeners
				}
			}
		case kindFunc:
			v, err = b.funcs[i](ctx, fullMethod, req)
		}
		if err != nil {
			return "", partErr(e, err)
		}
		if v == "" {
			return "", missing(e, "is missing or empty")
		}
		if v, err = convert(e.conv, v); err != nil {
			return "", partErr(e, err)
		}
		parts = append(parts, v)
	}
	return join(b.prefix, name, parts, b.opts.maxKeyLen)
}

// validIdent reports whether s is a proto identifier.
func validIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return false
	}
	return s != ""
}
