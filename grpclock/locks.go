package grpclock

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"google.golang.org/grpc"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/failure"
	"github.com/lock4go/lock4go/internal/lockspec"
)

// Locks are the compiled Specs of a gRPC server's methods and the
// interceptors that apply them. It is safe for concurrent use.
type Locks struct {
	tpl     *lock4go.Template
	methods map[string]*method // by full method
	misconf lockspec.Once      // methods whose misconfiguration was logged
	checked atomic.Bool        // Check has passed
	warned  atomic.Bool        // the missing Check was logged
}

// method is the compiled Spec of one method.
type method struct {
	c    lockspec.Compiled
	keys []*keyBuilder // one, or one per expression of Spec.Each
	fail FailureHandler
}

// New compiles specs, keyed by full method ("/pkg.Service/Method"), for
// the gRPC server that [Locks.ServerOptions] will install them on. A bad
// Spec (a malformed key expression, a negative duration, KeepUntilExpire
// without Expire, an unknown executor, a key that is not a full method) is
// an error wrapping lock4go.ErrInvalidConfig. Whether each method exists,
// and whether its Spec fits its kind and request type, is known only once
// the services are registered: call [Locks.Check] then.
func New(tpl *lock4go.Template, specs map[string]Spec, opts ...Option) (*Locks, error) {
	if tpl == nil {
		return nil, fmt.Errorf("grpclock: nil Template: %w", lock4go.ErrInvalidConfig)
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if o.failure == nil {
		o.failure = StatusFailure(StatusOptions{Logger: tpl.Config().Logger})
	}
	l := &Locks{tpl: tpl, methods: make(map[string]*method, len(specs))}
	for name, spec := range specs {
		m, err := compile(tpl, name, &spec, &o)
		if err != nil {
			return nil, err
		}
		l.methods[name] = m
	}
	return l, nil
}

// compile validates the Spec of the method name.
func compile(tpl *lock4go.Template, name string, spec *Spec, o *options) (*method, error) {
	where := fmt.Sprintf("grpclock: Spec for %q", name)
	if !strings.HasPrefix(name, "/") || strings.Count(name, "/") != 2 || strings.HasSuffix(name, "/") {
		return nil, fmt.Errorf("%s: not a full method name (\"/pkg.Service/Method\"): %w", where, lock4go.ErrInvalidConfig)
	}
	attrs := spec.attrs()
	c, err := attrs.Compile(tpl, where)
	if err != nil {
		return nil, err
	}
	m := &method{c: c, fail: spec.Failure}
	if m.fail == nil {
		m.fail = o.failure
	}
	for _, exprs := range attrs.KeyExprs() {
		b, err := newKeyBuilder(tpl.Config().KeyPrefix, spec.Name, exprs, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		m.keys = append(m.keys, b)
	}
	return m, nil
}

// ServerOptions returns the options that install both interceptors, unary
// and stream, on a grpc.Server: the one way to install them, so that no
// Spec is left without the interceptor its method needs.
//
//	srv := grpc.NewServer(locks.ServerOptions()...)
//
// They are chained (grpc.ChainUnaryInterceptor,
// grpc.ChainStreamInterceptor), after any interceptor given before them:
// put a recovery interceptor first, so that it runs outside the lock.
func (l *Locks) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(l.unary),
		grpc.ChainStreamInterceptor(l.stream),
	}
}

// unary runs each unary method with a Spec under its lock, and every other
// method untouched. The lock is released when the handler returns, and
// also when it panics; the panic then goes on.
func (l *Locks) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	l.warnUnchecked(ctx)
	m := l.methods[info.FullMethod]
	if m == nil {
		return handler(ctx, req)
	}
	key, keys, err := lockspec.BuildKeys(m.keys, func(b *keyBuilder) (string, error) { return b.key(ctx, info.FullMethod, req) })
	if err != nil {
		return m.fail.HandleUnary(ctx, req, info, l.failed(ctx, info.FullMethod, failure.Info{Err: err, AcquireTimeout: m.c.Wait}))
	}
	lk, key, err := lockspec.Lock(ctx, l.tpl, key, keys, m.c.LockOpts)
	if err != nil {
		return m.fail.HandleUnary(ctx, req, info, l.failed(ctx, info.FullMethod, failure.Info{Key: key, Err: err, AcquireTimeout: m.c.Wait}))
	}
	lctx, cancel := lk.Context(ctx)
	defer m.done(lk, lctx, cancel)
	return handler(lctx, req)
}

// stream runs each stream method with a Spec under its lock, taken before
// the handler receives any message, and every other method untouched.
func (l *Locks) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	ctx := ss.Context()
	l.warnUnchecked(ctx)
	m := l.methods[info.FullMethod]
	if m == nil {
		return handler(srv, ss)
	}
	key, keys, err := lockspec.BuildKeys(m.keys, func(b *keyBuilder) (string, error) {
		if b.readReq {
			return "", errStreamReadsRequest
		}
		return b.key(ctx, info.FullMethod, nil)
	})
	if err != nil {
		return m.fail.HandleStream(srv, ss, info, l.failed(ctx, info.FullMethod, failure.Info{Err: err, AcquireTimeout: m.c.Wait}))
	}
	lk, key, err := lockspec.Lock(ctx, l.tpl, key, keys, m.c.LockOpts)
	if err != nil {
		return m.fail.HandleStream(srv, ss, info, l.failed(ctx, info.FullMethod, failure.Info{Key: key, Err: err, AcquireTimeout: m.c.Wait}))
	}
	lctx, cancel := lk.Context(ctx)
	defer m.done(lk, lctx, cancel)
	return handler(srv, ctxStream{ServerStream: ss, ctx: lctx})
}

// errStreamReadsRequest is the error of a stream whose Spec reads the
// request: a stream is locked before its first message.
var errStreamReadsRequest = fmt.Errorf("grpclock: a stream is locked before its first message, so its keys cannot use req.<field>: %w",
	lock4go.ErrInvalidConfig)

// failed logs a misconfiguration once per method and returns f.
func (l *Locks) failed(ctx context.Context, fullMethod string, f failure.Info) failure.Info {
	if failure.Classify(f.Err) == failure.ClassMisconfigured {
		l.misconf.Log(ctx, l.tpl.Config().Logger,
			"lock4go: gRPC method misconfigured: its calls are answered Internal until the configuration is fixed",
			"method", fullMethod, f.Err)
	}
	return f
}

// done cancels the handler's context and releases the lock unless kept.
func (m *method) done(l *lock4go.Lock, ctx context.Context, cancel context.CancelFunc) {
	cancel()
	if !m.c.Keep {
		_ = l.Release(ctx) // detached inside; errors are logged by the Template
	}
}

// warnUnchecked logs once, at the first call, that Check was not called:
// a Spec for a method the server does not have would lock nothing.
func (l *Locks) warnUnchecked(ctx context.Context) {
	if l.checked.Load() || l.warned.Load() || !l.warned.CompareAndSwap(false, true) {
		return
	}
	l.tpl.Config().Logger.WarnContext(ctx,
		"lock4go: grpclock.Locks serves calls but Check was not called: a Spec for a method the server does not have (a typo, another case) locks nothing; call locks.Check(srv) after registering the services")
}
