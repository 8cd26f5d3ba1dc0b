package middleware_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/failure"
	"github.com/lock4go/lock4go/internal/mwtest"
	"github.com/lock4go/lock4go/middleware"
)

// TestHTTP_misconfigured covers what only a request can show: a key the
// route's configuration cannot build, the same for every request. It is
// the operator's fault: 500 with MisconfiguredMessage, logged at ERROR
// once per route however many requests come, and the handler never runs.
func TestHTTP_misconfigured(t *testing.T) {
	plain := &plainExecutor{}
	tests := []struct {
		name    string
		spec    middleware.Spec
		pattern string // "" wraps the whole mux: no route pattern
	}{
		{"path wildcard the route lacks", middleware.Spec{Keys: []string{"path.orderId"}}, "POST /orders/{id}"},
		{"no route pattern", middleware.Spec{Keys: []string{"query.id"}}, ""},
		{"path without a route pattern", middleware.Spec{Name: "pay", Keys: []string{"path.id"}}, ""},
		{"read lock on an executor without", middleware.Spec{Name: "pay", Shared: true}, "POST /orders/{id}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mwtest.NewEnv(t, plain)
			var runs atomic.Int32
			handler := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { runs.Add(1) })
			mux := http.NewServeMux()
			var h http.Handler = mux
			if tt.pattern != "" {
				mux.Handle(tt.pattern, middleware.HTTP(e.Tpl, tt.spec)(handler))
			} else {
				mux.Handle("POST /orders/{id}", handler)
				h = middleware.HTTP(e.Tpl, tt.spec)(mux)
			}
			for range 5 {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest("POST", "/orders/7?id=7", nil))
				if w.Code != http.StatusInternalServerError || w.Body.String() != failure.MisconfiguredMessage {
					t.Fatalf("got %d %q, want 500 %q", w.Code, w.Body, failure.MisconfiguredMessage)
				}
			}
			if runs.Load() != 0 {
				t.Fatal("the handler ran")
			}
			logs := e.Logs.String()
			if n := strings.Count(logs, "level=ERROR"); n != 1 || !strings.Contains(logs, "misconfigured") {
				t.Fatalf("%d records at ERROR for 5 requests, want 1 saying the route is misconfigured:\n%s", n, logs)
			}
		})
	}
}

// plainExecutor is an in-process executor with mutexes only.
type plainExecutor struct{ mwtest.DownExecutor }

func (*plainExecutor) Name() string { return "plain" }
func (*plainExecutor) Capabilities() executor.Capabilities {
	return executor.Capabilities{InProcess: true}
}

// TestHTTP_missingPart checks that a request without a key part is told
// which part, at 400, with nothing of what it sent echoed back and
// nothing logged above Info.
func TestHTTP_missingPart(t *testing.T) {
	e := mwtest.NewEnv(t)
	srv := serve(t, e, middleware.Spec{Keys: []string{"query.id", "header.X-Tenant|int"}},
		func(http.ResponseWriter, *http.Request) {})
	send := func(query, tenant string) result {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/orders/1?"+query, nil)
		req.Header.Set("X-Tenant", tenant)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return result{code: res.StatusCode, body: string(b)}
	}
	huge := strings.Repeat("x", 5000)
	for _, c := range []struct{ query, tenant, want string }{
		{"", "1", `missing key part "query.id"`},
		{"id=" + huge, huge, `invalid key part "header.X-Tenant|int"`},
		{"id=" + strings.Repeat("y", 70<<10), "1", `invalid key part "query.id"`}, // over the part cap
	} {
		if r := send(c.query, c.tenant); r.code != http.StatusBadRequest || r.body != c.want {
			t.Errorf("query %.20q…: got %d %.80q, want 400 %q", c.query, r.code, r.body, c.want)
		}
	}
	if strings.Contains(e.Logs.String(), "level=ERROR") || strings.Contains(e.Logs.String(), "level=WARN") {
		t.Errorf("a client's missing part was logged as a server problem:\n%s", e.Logs.String())
	}
}

// TestNewHTTP_invalid checks what construction refuses: negative
// durations and counts, malformed expressions, contradictions.
func TestNewHTTP_invalid(t *testing.T) {
	e := mwtest.NewEnv(t)
	for name, spec := range map[string]middleware.Spec{
		"negative expire":          {Expire: -time.Second},
		"negative acquire timeout": {AcquireTimeout: -1},
		"negative retry interval":  {RetryInterval: -time.Millisecond},
		"negative permits":         {Permits: -1},
		"shared and permits":       {Shared: true, Permits: 2},
		"keep without expire":      {KeepUntilExpire: true},
		"unknown executor":         {Executor: "nope"},
		"unknown source":           {Keys: []string{"body.id"}},
		"gRPC source":              {Keys: []string{"req.id"}},
		"bad conversion":           {Keys: []string{"path.id|num"}},
		"name too long":            {Name: strings.Repeat("n", 600)},
	} {
		if _, err := middleware.NewHTTP(e.Tpl, spec); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("%s: NewHTTP = %v, want ErrInvalidConfig", name, err)
		}
		func() {
			defer func() {
				if p, _ := recover().(error); !errors.Is(p, lock4go.ErrInvalidConfig) {
					t.Errorf("%s: HTTP did not panic with ErrInvalidConfig: %v", name, p)
				}
			}()
			middleware.HTTP(e.Tpl, spec)
		}()
	}
	if _, err := middleware.NewHTTP(nil, middleware.Spec{}); !errors.Is(err, lock4go.ErrInvalidConfig) {
		t.Errorf("nil Template: %v", err)
	}
	// Zero is the default: a Spec of zeros is valid.
	if _, err := middleware.NewHTTP(e.Tpl, middleware.Spec{Name: "pay", NoWait: true, AcquireTimeout: 0, Permits: 0}); err != nil {
		t.Errorf("zero Spec fields: %v", err)
	}
}
