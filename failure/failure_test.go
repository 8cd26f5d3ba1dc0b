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

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/keybuilder"
)

var secret = errors.New("dial tcp 10.1.2.3:6379: connection refused")

func wrap(sentinel error) error {
	return fmt.Errorf("lock4go: lock \"k\" on redis: %w: %w", sentinel, secret)
}

func TestClassify(t *testing.T) {
	tests := []struct {
		err  error
		want Class
	}{
		{wrap(executor.ErrNotAcquired), ClassBusy},
		{fmt.Errorf("x: %w: %w", executor.ErrNotAcquired, context.DeadlineExceeded), ClassBusy},
		{wrap(executor.ErrBackend), ClassUnavailable},
		{wrap(executor.ErrUnknownExecutor), ClassUnavailable},
		{wrap(executor.ErrInvalidKey), ClassInvalidKey},
		{wrap(executor.ErrInvalidConfig), ClassMisconfigured},
		{secret, ClassInternal},
		{nil, ClassInternal},
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
		{"internal", HTTPOptions{}, Info{Err: wrap(errors.New("lookup failed"))}, 500, ""},
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

// TestHTTPStatus_bodies checks the answers that are not DefaultMessage: an
// invalid key names its part and nothing of the request, a
// misconfiguration says so and is left to the middleware to log loudly.
func TestHTTPStatus_bodies(t *testing.T) {
	secretPart := strings.Repeat("s", 100)
	partErr := &keybuilder.PartError{Expr: "query.id", Missing: true, Err: fmt.Errorf("%q: %w", secretPart, executor.ErrInvalidKey)}
	badErr := &keybuilder.PartError{Expr: "json.id|int", Err: fmt.Errorf("%q is not an integer: %w", secretPart, executor.ErrInvalidKey)}
	tests := []struct {
		name      string
		err       error
		code      int
		body      string
		logged    slog.Level
		secretLog bool
	}{
		{"missing part", fmt.Errorf("wrapped: %w", partErr), 400, `missing key part "query.id"`, slog.LevelInfo, true},
		{"invalid part", badErr, 400, `invalid key part "json.id|int"`, slog.LevelInfo, true},
		{"invalid key without a part", wrap(executor.ErrInvalidKey), 400, InvalidKeyMessage, slog.LevelInfo, false},
		{"misconfigured", wrap(executor.ErrInvalidConfig), 500, MisconfiguredMessage, slog.LevelDebug, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			w := httptest.NewRecorder()
			HTTPStatus(HTTPOptions{Logger: logger}).ServeLockFailure(w, httptest.NewRequest("POST", "/", nil), Info{Err: tt.err})
			if w.Code != tt.code || w.Body.String() != tt.body || strings.Contains(w.Body.String(), secretPart) {
				t.Fatalf("got %d %q, want %d %q", w.Code, w.Body, tt.code, tt.body)
			}
			if !strings.Contains(logs.String(), "level="+tt.logged.String()) {
				t.Errorf("logged %q, want at %v", logs.String(), tt.logged)
			}
			if tt.secretLog && !strings.Contains(logs.String(), secretPart) {
				t.Errorf("the cause is not logged: %s", logs.String())
			}
		})
	}
}
