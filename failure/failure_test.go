package failure

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/lock4go/lock4go/executor"
)

var secret = errors.New("dial tcp 10.1.2.3:6379: connection refused")

func wrap(sentinel error) error {
	return fmt.Errorf("lock4go: lock \"k\" on redis: %w: %w", sentinel, secret)
}

func TestClassify(t *testing.T) {
	tests := []struct {
		err  error
		want Kind
	}{
		{wrap(executor.ErrNotAcquired), KindBusy},
		{fmt.Errorf("x: %w: %w", executor.ErrNotAcquired, context.DeadlineExceeded), KindBusy},
		{wrap(executor.ErrBackend), KindUnavailable},
		{wrap(executor.ErrUnknownExecutor), KindUnavailable},
		{wrap(executor.ErrInvalidKey), KindInvalidKey},
		{wrap(executor.ErrInvalidConfig), KindInternal},
		{secret, KindInternal},
		{nil, KindInternal},
	}
	for _, tt := range tests {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("Classify(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestHTTPStatus(t *testing.T) {
	tests := []struct {
		name       string
		opts       HTTPOptions
		info       Info
		wantCode   int
		retryAfter string
	}{
		{"busy default", HTTPOptions{}, Info{Err: wrap(executor.ErrNotAcquired)}, 429, "1"},
		{"busy from acquire timeout", HTTPOptions{}, Info{Err: wrap(executor.ErrNotAcquired), AcquireTimeout: 2100 * time.Millisecond}, 429, "3"},
		{"busy configured", HTTPOptions{RetryAfter: 10 * time.Second}, Info{Err: wrap(executor.ErrNotAcquired), AcquireTimeout: time.Second}, 429, "10"},
		{"busy sub-second", HTTPOptions{RetryAfter: time.Millisecond}, Info{Err: wrap(executor.ErrNotAcquired)}, 429, "1"},
		{"backend", HTTPOptions{}, Info{Err: wrap(executor.ErrBackend)}, 503, ""},
		{"unknown executor", HTTPOptions{}, Info{Err: wrap(executor.ErrUnknownExecutor)}, 503, ""},
		{"invalid key", HTTPOptions{}, Info{Err: wrap(executor.ErrInvalidKey)}, 400, ""},
		{"internal", HTTPOptions{}, Info{Err: wrap(executor.ErrInvalidConfig)}, 500, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			tt.opts.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			w := httptest.NewRecorder()
			HTTPStatus(tt.opts).ServeLockFailure(w, httptest.NewRequest("POST", "/orders/1", nil), tt.info)
			res := w.Result()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.wantCode || string(body) != DefaultMessage {
				t.Fatalf("got %d %q, want %d %q", res.StatusCode, body, tt.wantCode, DefaultMessage)
			}
			if got := res.Header.Get("Retry-After"); got != tt.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tt.retryAfter)
			}
			if res.Header.Get("Content-Type") != "text/plain; charset=utf-8" || res.ContentLength != int64(len(DefaultMessage)) {
				t.Errorf("headers = %v", res.Header)
			}
			if !strings.Contains(logs.String(), "connection refused") {
				t.Errorf("the cause is not logged: %s", logs.String())
			}
		})
	}
}

func TestHTTPFallback(t *testing.T) {
	fb := HTTPFallback(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := FromContext(r.Context())
		if !ok {
			t.Error("no failure in the context")
		}
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "queued "+f.Key)
	}))
	w := httptest.NewRecorder()
	fb.ServeLockFailure(w, httptest.NewRequest("GET", "/", nil), Info{Key: "k1", Err: wrap(executor.ErrNotAcquired)})
	if w.Code != http.StatusAccepted || w.Body.String() != "queued k1" {
		t.Fatalf("got %d %q", w.Code, w.Body)
	}
}

func TestGRPCStatus(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want codes.Code
	}{
		{"busy", wrap(executor.ErrNotAcquired), codes.Aborted},
		{"backend", wrap(executor.ErrBackend), codes.Unavailable},
		{"invalid key", wrap(executor.ErrInvalidKey), codes.InvalidArgument},
		{"internal", wrap(executor.ErrInvalidConfig), codes.Internal},
	}
	info := &grpc.UnaryServerInfo{FullMethod: "/svc/M"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			h := GRPCStatus(GRPCOptions{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			resp, err := h.HandleUnary(t.Context(), nil, info, Info{Err: tt.err})
			st, _ := status.FromError(err)
			if resp != nil || st.Code() != tt.want || st.Message() != DefaultMessage {
				t.Fatalf("got %v, %v; want %v %q", resp, err, tt.want, DefaultMessage)
			}
			if !strings.Contains(logs.String(), "connection refused") {
				t.Errorf("the cause is not logged: %s", logs.String())
			}
		})
	}
	t.Run("caller gone", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := GRPCStatus(GRPCOptions{}).HandleUnary(ctx, nil, info, Info{Err: wrap(executor.ErrNotAcquired)})
		if status.Code(err) != codes.Canceled {
			t.Fatalf("err = %v, want Canceled", err)
		}
	})
}

func TestFailFast(t *testing.T) {
	err := wrap(executor.ErrNotAcquired)
	_, got := FailFast.HandleUnary(t.Context(), nil, &grpc.UnaryServerInfo{FullMethod: "/svc/M"}, Info{Err: err})
	if got != err {
		t.Fatalf("FailFast returned %v, want the error as is", got)
	}
}

func TestGRPCFallback(t *testing.T) {
	fb := GRPCFallback{Unary: func(ctx context.Context, req any) (any, error) {
		f, ok := FromContext(ctx)
		if !ok {
			return nil, errors.New("no failure in the context")
		}
		return "fallback " + f.Key, nil
	}}
	resp, err := fb.HandleUnary(t.Context(), nil, &grpc.UnaryServerInfo{FullMethod: "/svc/M"}, Info{Key: "k"})
	if err != nil || resp != "fallback k" {
		t.Fatalf("got %v, %v", resp, err)
	}
	// No stream handler: the default status.
	err = fb.HandleStream(nil, fakeStream{ctx: t.Context()}, &grpc.StreamServerInfo{FullMethod: "/svc/S"}, Info{Err: wrap(executor.ErrNotAcquired)})
	if status.Code(err) != codes.Aborted {
		t.Fatalf("err = %v, want Aborted", err)
	}
}

type fakeStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s fakeStream) Context() context.Context { return s.ctx }
