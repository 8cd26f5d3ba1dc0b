package grpclock

import (
	"context"
	"log/slog"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/lock4go/lock4go/failure"
)

// FailureHandler decides the outcome of a gRPC call whose lock was not
// obtained. The protected handler has not run. Implementations must be
// safe for concurrent use.
type FailureHandler interface {
	// HandleUnary returns the response and error of a unary call.
	HandleUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, f failure.Info) (any, error)
	// HandleStream returns the error that ends a stream.
	HandleStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, f failure.Info) error
}

// FailureFunc adapts a function returning the call's error to
// [FailureHandler], for unary calls and streams alike. Return a status
// error (status.Error) to choose the code; any other error reaches the
// client as codes.Unknown with its text.
type FailureFunc func(ctx context.Context, fullMethod string, f failure.Info) error

// HandleUnary returns fn(ctx, info.FullMethod, f).
func (fn FailureFunc) HandleUnary(ctx context.Context, _ any, info *grpc.UnaryServerInfo, f failure.Info) (any, error) {
	return nil, fn(ctx, info.FullMethod, f)
}

// HandleStream returns fn(ss.Context(), info.FullMethod, f).
func (fn FailureFunc) HandleStream(_ any, ss grpc.ServerStream, info *grpc.StreamServerInfo, f failure.Info) error {
	return fn(ss.Context(), info.FullMethod, f)
}

// FailFast returns the error as is, for callers that inspect it with
// errors.Is. Over gRPC it reaches the client as codes.Unknown with the
// error's text, key included: use it only between trusted services.
var FailFast FailureFunc = func(_ context.Context, _ string, f failure.Info) error { return f.Err }

// StatusOptions configures [StatusFailure]. The zero value consists
// entirely of defaults.
type StatusOptions struct {
	// Message is the status message of busy, unavailable and internal
	// failures. Zero means failure.DefaultMessage.
	Message string
	// Logger receives one record per failure with the error: busy and
	// misconfigured at Debug (the interceptors log a misconfiguration at
	// Error, once per method), invalid key at Info, others at Error. Nil
	// means slog.Default().
	Logger *slog.Logger
}

// StatusFailure returns the default gRPC strategy, a status by
// failure.Class: Aborted when the lock is busy, Unavailable when the backend
// is unavailable, InvalidArgument naming the key part for an invalid key
// (failure.PublicMessage), Internal with failure.MisconfiguredMessage for
// a misconfiguration and Internal otherwise. When the call's own context
// has ended, the status is Canceled or DeadlineExceeded.
func StatusFailure(o StatusOptions) FailureHandler {
	if o.Message == "" {
		o.Message = failure.DefaultMessage
	}
	return FailureFunc(func(ctx context.Context, method string, f failure.Info) error {
		kind := failure.Classify(f.Err)
		code, level, msg := codes.Internal, slog.LevelError, o.Message
		switch kind {
		case failure.ClassBusy:
			code, level = codes.Aborted, slog.LevelDebug
		case failure.ClassUnavailable:
			code = codes.Unavailable
		case failure.ClassInvalidKey:
			code, level, msg = codes.InvalidArgument, slog.LevelInfo, failure.PublicMessage(f.Err)
		case failure.ClassMisconfigured:
			level, msg = slog.LevelDebug, failure.MisconfiguredMessage
		}
		if ctx.Err() != nil {
			code, level = status.FromContextError(ctx.Err()).Code(), slog.LevelDebug
		}
		logger := o.Logger
		if logger == nil {
			logger = slog.Default()
		}
		if logger.Enabled(ctx, level) {
			logger.LogAttrs(ctx, level, "lock4go: lock not obtained",
				slog.String("kind", kind.String()), slog.String("key", f.Key),
				slog.String("method", method), slog.String("code", code.String()),
				slog.Any("error", f.Err))
		}
		return status.Error(code, msg)
	})
}

// FallbackFailure serves calls whose lock was not obtained with other
// handlers, which find the failure with failure.FromContext. A nil handler
// falls back to StatusFailure(StatusOptions{}).
type FallbackFailure struct {
	Unary  grpc.UnaryHandler
	Stream grpc.StreamHandler
}

// HandleUnary calls b.Unary with a context carrying f.
func (b FallbackFailure) HandleUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, f failure.Info) (any, error) {
	if b.Unary == nil {
		return StatusFailure(StatusOptions{}).HandleUnary(ctx, req, info, f)
	}
	return b.Unary(failure.NewContext(ctx, f), req)
}

// HandleStream calls b.Stream with a stream whose context carries f.
func (b FallbackFailure) HandleStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, f failure.Info) error {
	if b.Stream == nil {
		return StatusFailure(StatusOptions{}).HandleStream(srv, ss, info, f)
	}
	return b.Stream(srv, ctxStream{ServerStream: ss, ctx: failure.NewContext(ss.Context(), f)})
}

// ctxStream is a server stream with another context: the failure's for a
// fallback, the lock's for a locked handler.
type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s ctxStream) Context() context.Context { return s.ctx }
