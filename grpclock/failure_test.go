package grpclock_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/failure"
	"github.com/lock4go/lock4go/grpclock"
	"github.com/lock4go/lock4go/keybuilder"
)

var secret = errors.New("dial tcp 10.1.2.3:6379: connection refused")

func wrap(sentinel error) error {
	return fmt.Errorf("lock4go: lock \"k\" on redis: %w: %w", sentinel, secret)
}

func TestStatusFailure(t *testing.T) {
	part := &keybuilder.PartError{Expr: "req.order_id", Missing: true, Err: wrap(executor.ErrInvalidKey)}
	tests := []struct {
		name  string
		err   error
		code  codes.Code
		msg   string
		level slog.Level
	}{
		{"busy", wrap(executor.ErrNotAcquired), codes.Aborted, failure.DefaultMessage, slog.LevelDebug},
		{"backend", wrap(executor.ErrBackend), codes.Unavailable, failure.DefaultMessage, slog.LevelError},
		{"missing part", part, codes.InvalidArgument, `missing key part "req.order_id"`, slog.LevelInfo},
		{"invalid key", wrap(executor.ErrInvalidKey), codes.InvalidArgument, failure.InvalidKeyMessage, slog.LevelInfo},
		{"misconfigured", wrap(executor.ErrInvalidConfig), codes.Internal, failure.MisconfiguredMessage, slog.LevelDebug},
		{"internal", secret, codes.Internal, failure.DefaultMessage, slog.LevelError},
	}
	info := &grpc.UnaryServerInfo{FullMethod: "/svc/M"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			h := grpclock.StatusFailure(grpclock.StatusOptions{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			resp, err := h.HandleUnary(t.Context(), nil, info, failure.Info{Err: tt.err})
			st, _ := status.FromError(err)
			if resp != nil || st.Code() != tt.code || st.Message() != tt.msg {
				t.Fatalf("got %v, %v; want %v %q", resp, err, tt.code, tt.msg)
			}
			if !strings.Contains(logs.String(), "connection refused") || !strings.Contains(logs.String(), "level="+tt.level.String()) {
				t.Errorf("logged %s, want the cause at %v", logs.String(), tt.level)
			}
		})
	}
	t.Run("caller gone", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := grpclock.StatusFailure(grpclock.StatusOptions{}).HandleUnary(ctx, nil, info, failure.Info{Err: wrap(executor.ErrNotAcquired)})
		if status.Code(err) != codes.Canceled {
			t.Fatalf("err = %v, want Canceled", err)
		}
	})
}

func TestFailFast(t *testing.T) {
	err := wrap(executor.ErrNotAcquired)
	_, got := grpclock.FailFast.HandleUnary(t.Context(), nil, &grpc.UnaryServerInfo{FullMethod: "/svc/M"}, failure.Info{Err: err})
	if got != err {
		t.Fatalf("FailFast returned %v, want the error as is", got)
	}
}

func TestFallbackFailure(t *testing.T) {
	fb := grpclock.FallbackFailure{Unary: func(ctx context.Context, req any) (any, error) {
		f, ok := failure.FromContext(ctx)
		if !ok {
			return nil, errors.New("no failure in the context")
		}
		return "fallback " + f.Key, nil
	}}
	resp, err := fb.HandleUnary(t.Context(), nil, &grpc.UnaryServerInfo{FullMethod: "/svc/M"}, failure.Info{Key: "k"})
	if err != nil || resp != "fallback k" {
		t.Fatalf("got %v, %v", resp, err)
	}
	// No stream handler: the default status.
	err = fb.HandleStream(nil, fakeStream{ctx: t.Context()}, &grpc.StreamServerInfo{FullMethod: "/svc/S"}, failure.Info{Err: wrap(executor.ErrNotAcquired)})
	if status.Code(err) != codes.Aborted {
		t.Fatalf("err = %v, want Aborted", err)
	}
}

type fakeStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s fakeStream) Context() context.Context { return s.ctx }
