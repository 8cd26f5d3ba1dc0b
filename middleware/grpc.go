package middleware

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/failure"
	"github.com/lock4go/lock4go/keybuilder"
)

// UnaryServerInterceptor returns an interceptor that runs each unary method
// with a Spec in specs (keyed by full method, "/pkg.Service/Method") under
// its lock, and every other method untouched. It panics with an error
// wrapping lock4go.ErrInvalidConfig when a Spec is invalid; use
// [NewUnaryServerInterceptor] to get the error instead.
//
// The lock is released when the handler returns, and also when it panics;
// the panic then goes on (grpc-go does not recover panics: add a recovery
// interceptor outside this one to turn them into codes.Internal).
func UnaryServerInterceptor(tpl *lock4go.Template, specs map[string]Spec, opts ...Option) grpc.UnaryServerInterceptor {
	i, err := NewUnaryServerInterceptor(tpl, specs, opts...)
	if err != nil {
		panic(err)
	}
	return i
}

// NewUnaryServerInterceptor is [UnaryServerInterceptor] returning an error
// instead of panicking.
func NewUnaryServerInterceptor(tpl *lock4go.Template, specs map[string]Spec, opts ...Option) (grpc.UnaryServerInterceptor, error) {
	methods, err := compileGRPC(tpl, specs, opts)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		m := methods[info.FullMethod]
		if m == nil {
			return handler(ctx, req)
		}
		key, keys, err := buildKeys(m.keys, func(b *keybuilder.GRPC) (string, error) { return b.Key(ctx, info.FullMethod, req) })
		if err != nil {
			return m.fail.HandleUnary(ctx, req, info, failure.Info{Err: err, AcquireTimeout: m.c.wait})
		}
		l, key, err := lockKeys(ctx, tpl, key, keys, m.c.lockOpts)
		if err != nil {
			return m.fail.HandleUnary(ctx, req, info, failure.Info{Key: key, Err: err, AcquireTimeout: m.c.wait})
		}
		lctx, cancel := l.Context(ctx)
		defer m.done(l, lctx, cancel)
		return handler(lctx, req)
	}, nil
}

// StreamServerInterceptor returns an interceptor that runs each stream
// method with a Spec in specs under its lock, and every other method
// untouched. The lock is taken before the handler receives any message, so
// a stream Spec's keys cannot read the request (req.<field>): key streams on
// metadata (md.<key>), method, ip or func.<name> expressions. The same specs
// map may serve both interceptors; since the kind of a method is only known
// per call, a stream whose Spec reads the request fails every call with an
// error wrapping lock4go.ErrInvalidConfig (codes.Internal with the default
// strategy, logged), and its handler never runs. It panics with
// an error wrapping lock4go.ErrInvalidConfig when a Spec is invalid; use
// [NewStreamServerInterceptor] to get the error instead. Release and panics
// are handled as by [UnaryServerInterceptor].
func StreamServerInterceptor(tpl *lock4go.Template, specs map[string]Spec, opts ...Option) grpc.StreamServerInterceptor {
	i, err := NewStreamServerInterceptor(tpl, specs, opts...)
	if err != nil {
		panic(err)
	}
	return i
}

// NewStreamServerInterceptor is [StreamServerInterceptor] returning an error
// instead of panicking.
func NewStreamServerInterceptor(tpl *lock4go.Template, specs map[string]Spec, opts ...Option) (grpc.StreamServerInterceptor, error) {
	methods, err := compileGRPC(tpl, specs, opts)
	if err != nil {
		return nil, err
	}
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		m := methods[info.FullMethod]
		if m == nil {
			return handler(srv, ss)
		}
		ctx := ss.Context()
		if m.noStream != nil {
			return m.fail.HandleStream(srv, ss, info, failure.Info{Err: m.noStream, AcquireTimeout: m.c.wait})
		}
		key, keys, err := buildKeys(m.keys, func(b *keybuilder.GRPC) (string, error) { return b.Key(ctx, info.FullMethod, nil) })
		if err != nil {
			return m.fail.HandleStream(srv, ss, info, failure.Info{Err: err, AcquireTimeout: m.c.wait})
		}
		l, key, err := lockKeys(ctx, tpl, key, keys, m.c.lockOpts)
		if err != nil {
			return m.fail.HandleStream(srv, ss, info, failure.Info{Key: key, Err: err, AcquireTimeout: m.c.wait})
		}
		lctx, cancel := l.Context(ctx)
		defer m.done(l, lctx, cancel)
		return handler(srv, &lockedStream{ServerStream: ss, ctx: lctx})
	}, nil
}

// grpcMethod is a compiled Spec of one method.
type grpcMethod struct {
	c        compiled
	keys     []*keybuilder.GRPC // one, or one per expression of Spec.Each
	fail     failure.GRPCHandler
	noStream error // why the Spec cannot lock a stream, if it cannot
}

// done cancels the handler's context and releases the lock unless kept.
func (m *grpcMethod) done(l *lock4go.Lock, ctx context.Context, cancel context.CancelFunc) {
	cancel()
	if !m.c.keep {
		_ = l.Release(ctx) // detached inside; errors are logged by the Template
	}
}

func compileGRPC(tpl *lock4go.Template, specs map[string]Spec, opts []Option) (map[string]*grpcMethod, error) {
	if tpl == nil {
		return nil, fmt.Errorf("middleware: nil Template: %w", lock4go.ErrInvalidConfig)
	}
	o := buildOptions(tpl, opts)
	methods := make(map[string]*grpcMethod, len(specs))
	for method, spec := range specs {
		where := fmt.Sprintf("Spec for %q", method)
		if !strings.HasPrefix(method, "/") || strings.Count(method, "/") != 2 {
			return nil, fmt.Errorf("middleware: %s: not a full method name (\"/pkg.Service/Method\"): %w",
				where, lock4go.ErrInvalidConfig)
		}
		c, err := spec.compile(tpl, where)
		if err != nil {
			return nil, err
		}
		m := &grpcMethod{c: c, fail: spec.GRPCFailure}
		readsReq := false
		for _, exprs := range spec.keyExprs() {
			b, err := keybuilder.NewGRPC(tpl.Config().KeyPrefix, spec.Name, exprs, o.keyOpts...)
			if err != nil {
				return nil, fmt.Errorf("middleware: %s: %w", where, err)
			}
			readsReq = readsReq || b.ReadsRequest()
			m.keys = append(m.keys, b)
		}
		if readsReq {
			m.noStream = fmt.Errorf("middleware: %s: a stream is locked before its first message, so its keys cannot use req.<field>: %w",
				where, lock4go.ErrInvalidConfig)
		}
		if m.fail == nil {
			m.fail = o.grpcFailure
		}
		methods[method] = m
	}
	return methods, nil
}

// lockedStream is a server stream whose context carries the lock.
type lockedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *lockedStream) Context() context.Context { return s.ctx }
