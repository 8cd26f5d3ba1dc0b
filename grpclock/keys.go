package grpclock

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/keyexpr"
	"github.com/lock4go/lock4go/keybuilder"
)

var grpcKinds = map[string]keyexpr.Kind{
	"req": keyexpr.KindReq, "md": keyexpr.KindMD, "method": keyexpr.KindMethod, "ip": keyexpr.KindIP, "func": keyexpr.KindFunc,
}

// keyBuilder builds the keys of one Spec's calls from key expressions. It
// is immutable and safe for concurrent use.
type keyBuilder struct {
	prefix  string
	name    string
	exprs   []keyexpr.Expr
	funcs   []KeyFunc // by expression index, for func.<name>
	opts    *options
	readReq bool // some expression reads the request message
}

// newKeyBuilder parses exprs. A malformed expression or an unknown
// func.<name> is an error wrapping executor.ErrInvalidConfig.
func newKeyBuilder(prefix, name string, exprs []string, o *options) (*keyBuilder, error) {
	b := &keyBuilder{prefix: prefix, name: name, opts: o}
	if name != "" {
		if err := keyexpr.CheckName(prefix, name, o.maxKeyLen); err != nil {
			return nil, err
		}
	}
	for _, src := range exprs {
		e, err := keyexpr.Parse(src, grpcKinds)
		if err != nil {
			return nil, err
		}
		var f KeyFunc
		switch e.Kind {
		case keyexpr.KindReq:
			for _, seg := range e.Path {
				if !validIdent(seg) {
					return nil, fmt.Errorf("expression %q: %q is not a field name: %w", src, seg, executor.ErrInvalidConfig)
				}
			}
			b.readReq = true
		case keyexpr.KindMD:
			e.Arg = strings.ToLower(e.Arg)
		case keyexpr.KindFunc:
			if f = o.funcs[e.Arg]; f == nil {
				return nil, fmt.Errorf("expression %q: no function registered with WithKeyFunc(%q, …): %w",
					src, e.Arg, executor.ErrInvalidConfig)
			}
		}
		b.exprs = append(b.exprs, e)
		b.funcs = append(b.funcs, f)
	}
	return b, nil
}

// key builds the key of a call to fullMethod with request message req (nil
// for a stream). A part missing, empty, over the part cap or not in a form
// its expression can key is a *keybuilder.PartError (wrapping
// executor.ErrInvalidKey); an expression that does not fit the request
// type is an error wrapping executor.ErrInvalidConfig.
func (b *keyBuilder) key(ctx context.Context, fullMethod string, req any) (string, error) {
	name := b.name
	if name == "" {
		name = fullMethod
	}
	var buf [8]string
	parts := buf[:0]
	var md metadata.MD
	for i := range b.exprs {
		e := &b.exprs[i]
		if e.Kind == keyexpr.KindMD && md == nil {
			md, _ = metadata.FromIncomingContext(ctx)
		}
		v, err := b.part(ctx, i, fullMethod, req, md)
		if err != nil {
			return "", err
		}
		parts = append(parts, v)
	}
	return keyexpr.Join(b.prefix, name, parts)
}

// part returns the part of expression i, checked and converted.
func (b *keyBuilder) part(ctx context.Context, i int, fullMethod string, req any, md metadata.MD) (string, error) {
	e := &b.exprs[i]
	var v string
	var err error
	switch e.Kind {
	case keyexpr.KindReq:
		v, err = protoField(req, e.Path, b.opts.maxPartLen)
	case keyexpr.KindMD:
		if vs := md[e.Arg]; len(vs) > 0 {
			v = vs[0]
		}
	case keyexpr.KindMethod:
		v = fullMethod
	case keyexpr.KindIP:
		if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
			v, err = keyexpr.IP(p.Addr.String())
		}
	case keyexpr.KindFunc:
		v, err = b.funcs[i](ctx, fullMethod, req)
	}
	switch {
	case err != nil:
		return "", partErr(e.Src, err)
	case v == "":
		return "", &keybuilder.PartError{Expr: e.Src, Missing: true, Err: errMissing}
	case e.Kind != keyexpr.KindReq && len(v) > b.opts.maxPartLen: // protoField caps the raw value
		return "", tooLong(e.Src, len(v), b.opts.maxPartLen)
	}
	if v, err = keyexpr.Convert(e.Conv, v); err != nil {
		return "", partErr(e.Src, err)
	}
	if v == "" { // base64 of no bytes
		return "", &keybuilder.PartError{Expr: e.Src, Missing: true, Err: errMissing}
	}
	return v, nil
}

// errMissing is the cause of a missing or empty part.
var errMissing = fmt.Errorf("missing or empty: %w", executor.ErrInvalidKey)

// partErr wraps an error met while evaluating the part of expr: a
// keybuilder.PartError when it is the call's fault (ErrInvalidKey), the
// error with the expression named otherwise.
func partErr(expr string, err error) error {
	if errors.Is(err, executor.ErrInvalidKey) {
		return &keybuilder.PartError{Expr: expr, Err: err}
	}
	return fmt.Errorf("grpclock: key part %q: %w", expr, err)
}

// tooLong returns the error of a part of n bytes, over the cap max.
func tooLong(expr string, n, max int) error {
	return &keybuilder.PartError{Expr: expr, Err: fmt.Errorf("%d bytes, longer than the part cap of %d: %w", n, max, executor.ErrInvalidKey)}
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
