package failure

import (
	"context"
	"log/slog"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// GRPCHandler decides the outcome of a gRPC call whose lock was not
// obtained. The protected handler has not run. Implementations must be safe
// for concurrent use.
type GRPCHandler interface {
	// HandleUnary returns the response and error of a unary call.
	HandleUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, f Info) (any, error)
	// HandleStream returns the error that ends a stream.
	HandleStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, f Info) error
}

// GRPCHandlerFunc adapts a function returning the call's error to
// [GRPCHandler], as [HTTPHandlerFunc] does for HTTP.
// Return a status error (status.Error) to choose the code; any other error
// reaches the client as codes.Unknown with its text.
type GRPCHandlerFunc func(ctx context.Context, fullMethod string, f Info) error

// GRPCFunc is the former name of [GRPCHandlerFunc].
//
// Deprecated: use GRPCHandlerFunc; keybuilder.GRPCFunc is an unrelated
// key-part function.
type GRPCFunc = GRPCHandlerFunc

// HandleUnary returns fn(ctx, info.FullMethod, f).
func (fn GRPCHandlerFunc) HandleUnary(ctx context.Context, _ any, info *grpc.UnaryServerInfo, f Info) (any, error) {
	return nil, fn(ctx, info.FullMethod, f)
}

// HandleStream returns fn(ss.Context(), info.FullMethod, f).
func (fn GRPCHandlerFunc) HandleStream(_ any, ss grpc.ServerStream, info *grpc.StreamServerInfo, f Info) error {
	return fn(ss.Context(), info.FullMethod, f)
}

// FailFast returns the error as is, for callers that inspect it with
// errors.Is. Over gRPC it reaches the client as codes.Unknown with the
// error's text, key included: use it only between trusted services.
var FailFast GRPCHandlerFunc = func(_ context.Context, _ string, f Info) error { return f.Err }

// GRPCOptions configures [GRPCStatus]. The zero value consists entirely of
// defaults.
type GRPCOptions struct {
	// Message is the status message. Zero means [DefaultMessage].
	Message string
	// Logger receives one record per failure with the error: busy at Debug,
	// invalid key at Info, others at Error. Nil means slog.Default().
	Logger *slog.Logger
}

// GRPCStatus returns the default gRPC strategy: Aborted when the lock is
// busy, Unavailable when the backend is unavailable, InvalidArgument for an
// invalid key and Internal otherwise, each with the same message. When the
// call's own context has ended, the status is Canceled or DeadlineExceeded.
func GRPCStatus(o GRPCOptions) GRPCHandler {
	if o.Message == "" {
		o.Message = DefaultMessage
	}
	return GRPCHandlerFunc(func(ctx context.Context, method string, f Info) error {
		kind := Classify(f.Err)
		code := codes.Internal
		level := slog.LevelError
		switch kind {
		case KindBusy:
			code, level = codes.Aborted, slog.LevelDebug
		case KindUnavailable:
			code = codes.Unavailable
		case KindInvalidKey:
			code, level = codes.InvalidArgument, slog.LevelInfo
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
		return status.Error(code, o.Message)
	})
}

// GRPCFallback serves calls whose lock was not obtained with other handlers.
// The handlers find the failure with [FromContext]. A nil handler falls back
// to GRPCStatus(GRPCOptions{}).
type GRPCFallback struct {
	Unary  grpc.UnaryHandler
	Stream grpc.StreamHandler
}

// HandleUnary calls b.Unary with a context carrying f.
func (b GRPCFallback) HandleUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, f Info) (any, error) {
	if b.Unary == nil {
		return GRPCStatus(GRPCOptions{}).HandleUnary(ctx, req, info, f)
	}
	return b.Unary(NewContext(ctx, f), req)
}

// HandleStream calls b.Stream with a stream whose context carries f.
func (b GRPCFallback) HandleStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, f Info) error {
	if b.Stream == nil {
		return GRPCStatus(GRPCOptions{}).HandleStream(srv, ss, info, f)
	}
	return b.Stream(srv, ctxStream{ServerStream: ss, ctx: NewContext(ss.Context(), f)})
}

// ctxStream overrides the context of a server stream.
type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s ctxStream) Context() context.Context { return s.ctx }
