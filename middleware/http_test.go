package middleware_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/failure"
	"github.com/lock4go/lock4go/internal/mwtest"
	"github.com/lock4go/lock4go/keybuilder"
	"github.com/lock4go/lock4go/middleware"
)

const route = "POST /orders/{id}"

// serve starts a real server routing route to h wrapped in the middleware.
func serve(t *testing.T, e *mwtest.Env, spec middleware.Spec, h http.HandlerFunc, opts ...middleware.Option) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(route, middleware.HTTP(e.Tpl, spec, opts...)(h))
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // panics are expected
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

type result struct {
	code       int
	body       string
	retryAfter string
	cookie     string
	err        error
}

// post sends a JSON body (json. expressions key only application/json
// bodies).
func post(ctx context.Context, c *http.Client, url, body string) result {
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		return result{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return result{code: res.StatusCode, body: string(b), retryAfter: res.Header.Get("Retry-After"), cookie: res.Header.Get("Set-Cookie"), err: err}
}

func orderKey(t *testing.T, id string) string {
	t.Helper()
	k, err := keybuilder.Join(lock4go.DefaultKeyPrefix, route, id)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestHTTP_sameKey_noWait(t *testing.T) {
	e := mwtest.NewEnv(t)
	const n = 50
	var inflight, overlaps, runs atomic.Int32
	gate := make(chan struct{})
	srv := serve(t, e, middleware.Spec{Keys: []string{"path.id"}, NoWait: true},
		func(w http.ResponseWriter, r *http.Request) {
			if inflight.Add(1) > 1 {
				overlaps.Add(1)
			}
			runs.Add(1)
			<-gate
			inflight.Add(-1)
			io.WriteString(w, "done")
		})
	results := make(chan result, n)
	for range n {
		go func() { results <- post(t.Context(), srv.Client(), srv.URL+"/orders/42", "") }()
	}
	busy := 0
	for busy < n-1 {
		r := <-results
		if r.err != nil || r.code != http.StatusTooManyRequests || r.retryAfter != "1" || r.body != failure.DefaultMessage {
			t.Fatalf("got %+v, want 429, Retry-After 1, the default message", r)
		}
		busy++
	}
	close(gate)
	if r := <-results; r.err != nil || r.code != http.StatusOK || r.body != "done" {
		t.Fatalf("the holder got %+v", r)
	}
	if overlaps.Load() != 0 || runs.Load() != 1 {
		t.Fatalf("%d handler runs, %d overlaps; want 1 and 0", runs.Load(), overlaps.Load())
	}
}

func TestHTTP_sameKey_wait(t *testing.T) {
	e := mwtest.NewEnv(t)
	const n = 50
	var inflight, overlaps atomic.Int32
	srv := serve(t, e, middleware.Spec{Keys: []string{"path.id"}, AcquireTimeout: 20 * time.Second},
		func(w http.ResponseWriter, r *http.Request) {
			if inflight.Add(1) > 1 {
				overlaps.Add(1)
			}
			time.Sleep(time.Millisecond) // a body that takes time, so overlaps would show
			inflight.Add(-1)
			io.WriteString(w, "done")
		})
	var wg sync.WaitGroup
	var ok atomic.Int32
	for range n {
		wg.Go(func() {
			if r := post(t.Context(), srv.Client(), srv.URL+"/orders/42", ""); r.err == nil && r.code == http.StatusOK {
				ok.Add(1)
			} else {
				t.Errorf("got %+v", r)
			}
		})
	}
	wg.Wait()
	if ok.Load() != n || overlaps.Load() != 0 {
		t.Fatalf("%d of %d succeeded, %d overlaps", ok.Load(), n, overlaps.Load())
	}
}

func TestHTTP_differentKeys_parallel(t *testing.T) {
	e := mwtest.NewEnv(t)
	var arrived sync.WaitGroup
	arrived.Add(2)
	both := make(chan struct{})
	go func() { arrived.Wait(); close(both) }()
	srv := serve(t, e, middleware.Spec{Keys: []string{"path.id"}, NoWait: true},
		func(w http.ResponseWriter, r *http.Request) {
			arrived.Done()
			select {
			case <-both: // both ids are inside their handlers at once
				io.WriteString(w, "together")
			case <-time.After(5 * time.Second):
				http.Error(w, "alone", http.StatusInternalServerError)
			}
		})
	var wg sync.WaitGroup
	for _, id := range []string{"1", "2"} {
		wg.Go(func() {
			if r := post(t.Context(), srv.Client(), srv.URL+"/orders/"+id, ""); r.code != http.StatusOK || r.body != "together" {
				t.Errorf("order %s: %+v", id, r)
			}
		})
	}
	wg.Wait()
}

func TestHTTP_panic(t *testing.T) {
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		wantCode int // 0: the connection is closed without a response
	}{
		{"before writing", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Set-Cookie", "paid=1")
			panic("boom")
		}, http.StatusInternalServerError},
		{"after writing", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusAccepted)
			io.WriteString(w, "partial")
			panic("boom")
		}, 0},
		{"after flushing", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(http.StatusAccepted)
			http.NewResponseController(w).Flush()
			panic("boom")
		}, http.StatusAccepted},
		{"abort", func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) }, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := mwtest.NewEnv(t)
			var calls atomic.Int32
			srv := serve(t, e, middleware.Spec{Keys: []string{"path.id"}, NoWait: true},
				func(w http.ResponseWriter, r *http.Request) {
					if calls.Add(1) == 1 {
						tt.handler(w, r)
					}
					io.WriteString(w, "second")
				})
			r := post(t.Context(), srv.Client(), srv.URL+"/orders/7", "")
			switch tt.wantCode {
			case 0:
				if r.err == nil {
					t.Fatalf("got %+v, want a closed connection", r)
				}
			case http.StatusInternalServerError:
				if r.err != nil || r.code != tt.wantCode || r.body != failure.DefaultMessage || r.cookie != "" {
					t.Fatalf("got %+v, want 500 %q without the handler's headers", r, failure.DefaultMessage)
				}
			default:
				if r.code != tt.wantCode {
					t.Fatalf("got %+v, want %d and never a 500 after the handler wrote", r, tt.wantCode)
				}
			}
			e.WaitEvent(t, lock4go.EventReleased, orderKey(t, "7"))
			if r := post(t.Context(), srv.Client(), srv.URL+"/orders/7", ""); r.code != http.StatusOK || r.body != "second" {
				t.Fatalf("next request: %+v", r)
			}
		})
	}
}

func TestHTTP_clientDisconnect(t *testing.T) {
	e := mwtest.NewEnv(t)
	entered := make(chan struct{})
	var cause atomic.Value
	srv := serve(t, e, middleware.Spec{Keys: []string{"path.id"}, NoWait: true},
		func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("block") == "" {
				return
			}
			close(entered)
			<-r.Context().Done()
			cause.Store(context.Cause(r.Context()))
		})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan result)
	go func() { done <- post(ctx, srv.Client(), srv.URL+"/orders/9?block=1", "") }()
	<-entered
	cancel()
	if r := <-done; r.err == nil {
		t.Fatalf("got %+v after cancelling", r)
	}
	e.WaitEvent(t, lock4go.EventReleased, orderKey(t, "9"))
	if c, _ := cause.Load().(error); errors.Is(c, lock4go.ErrLockLost) {
		t.Errorf("the handler's context ended with %v, want the client's cancellation", c)
	}
	if r := post(t.Context(), srv.Client(), srv.URL+"/orders/9", ""); r.code != http.StatusOK {
		t.Fatalf("next request: %+v", r)
	}
}

func TestHTTP_keepUntilExpire(t *testing.T) {
	e := mwtest.NewEnv(t)
	const window = 300 * time.Millisecond
	var runs atomic.Int32
	srv := serve(t, e, middleware.Spec{
		Keys: []string{"path.id"}, Expire: window, KeepUntilExpire: true, NoWait: true,
	}, func(w http.ResponseWriter, r *http.Request) { runs.Add(1) })
	url := srv.URL + "/orders/5"
	if r := post(t.Context(), srv.Client(), url, ""); r.code != http.StatusOK {
		t.Fatalf("first: %+v", r)
	}
	if r := post(t.Context(), srv.Client(), url, ""); r.code != http.StatusTooManyRequests {
		t.Fatalf("second, within the window: %+v", r)
	}
	if r := post(t.Context(), srv.Client(), srv.URL+"/orders/6", ""); r.code != http.StatusOK {
		t.Fatalf("another order within the window: %+v", r)
	}
	time.Sleep(window + 50*time.Millisecond) // let the lease run out
	if r := post(t.Context(), srv.Client(), url, ""); r.code != http.StatusOK {
		t.Fatalf("after the window: %+v", r)
	}
	if runs.Load() != 3 || e.Count(lock4go.EventReleased) != 0 {
		t.Fatalf("%d runs, %d releases; want 3 and 0", runs.Load(), e.Count(lock4go.EventReleased))
	}
	time.Sleep(window + 50*time.Millisecond) // let the last windows end before the leak check
}

func TestHTTP_backendDown(t *testing.T) {
	e := mwtest.NewEnv(t, mwtest.DownExecutor{})
	var runs atomic.Int32
	srv := serve(t, e, middleware.Spec{Keys: []string{"path.id"}, AcquireTimeout: 50 * time.Millisecond, RetryInterval: 10 * time.Millisecond},
		func(w http.ResponseWriter, r *http.Request) { runs.Add(1) })
	r := post(t.Context(), srv.Client(), srv.URL+"/orders/1", "")
	if r.code != http.StatusServiceUnavailable || r.body != failure.DefaultMessage || r.retryAfter != "" {
		t.Fatalf("got %+v, want 503 with the default message only", r)
	}
	if runs.Load() != 0 {
		t.Fatal("the handler ran without the lock")
	}
	if !strings.Contains(e.Logs.String(), "10.9.9.9") {
		t.Errorf("the cause was not logged: %s", e.Logs.String())
	}
}

func TestHTTP_invalidKey(t *testing.T) {
	e := mwtest.NewEnv(t)
	var runs atomic.Int32
	srv := serve(t, e, middleware.Spec{Keys: []string{"path.id", "json.customer.id"}},
		func(w http.ResponseWriter, r *http.Request) { runs.Add(1) })
	for body, want := range map[string]string{
		`{}`:                     `missing key part "json.customer.id"`,
		`{"customer":{"id":{}}}`: `invalid key part "json.customer.id"`,
		`not json`:               `invalid key part "json.customer.id"`,
		``:                       `invalid key part "json.customer.id"`,
	} {
		r := post(t.Context(), srv.Client(), srv.URL+"/orders/1", body)
		if r.code != http.StatusBadRequest || r.body != want {
			t.Errorf("body %q: got %+v, want 400 %q", body, r, want)
		}
	}
	if runs.Load() != 0 {
		t.Fatal("the handler ran without a key")
	}
}

func TestHTTP_noPattern(t *testing.T) {
	e := mwtest.NewEnv(t)
	// Wrapping the whole mux: no route pattern is known yet, and Spec.Name is
	// empty, so the key cannot be named: a server-side error, not a shared key.
	mux := http.NewServeMux()
	mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {})
	h := middleware.HTTP(e.Tpl, middleware.Spec{})(mux)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/orders/1", nil))
	if w.Code != http.StatusInternalServerError || w.Body.String() != failure.MisconfiguredMessage {
		t.Fatalf("got %d %q, want 500 %q", w.Code, w.Body, failure.MisconfiguredMessage)
	}
}

func TestHTTP_jsonBodyRestored(t *testing.T) {
	e := mwtest.NewEnv(t)
	body := `{"order":{"id":"o-1"},"note":"` + strings.Repeat("n", 10000) + `"}`
	srv := serve(t, e, middleware.Spec{Keys: []string{"json.order.id"}},
		func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			if string(b) != body {
				http.Error(w, "body changed", http.StatusInternalServerError)
			}
		})
	if r := post(t.Context(), srv.Client(), srv.URL+"/orders/x", body); r.code != http.StatusOK {
		t.Fatalf("got %+v", r)
	}
	e.WaitEvent(t, lock4go.EventAcquired, orderKey(t, "o-1"))
}

func TestHTTP_reentryAndLoss(t *testing.T) {
	e := mwtest.NewEnv(t)
	srv := serve(t, e, middleware.Spec{Keys: []string{"path.id"}, Expire: 200 * time.Millisecond, NoWait: true},
		func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			// A nested lock on the same key re-enters instead of failing.
			err := e.Tpl.Do(ctx, orderKey(t, r.PathValue("id")), func(context.Context) error { return nil },
				lock4go.NoWait())
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			if r.URL.Query().Get("outlive") == "" {
				return
			}
			// Outliving the fixed lease: the context is cancelled, cause ErrLockLost.
			select {
			case <-ctx.Done():
				io.WriteString(w, context.Cause(ctx).Error())
			case <-time.After(5 * time.Second):
				http.Error(w, "not cancelled", http.StatusInternalServerError)
			}
		})
	if r := post(t.Context(), srv.Client(), srv.URL+"/orders/3", ""); r.code != http.StatusOK {
		t.Fatalf("re-entry: %+v", r)
	}
	r := post(t.Context(), srv.Client(), srv.URL+"/orders/4?outlive=1", "")
	if r.code != http.StatusOK || !strings.Contains(r.body, lock4go.ErrLockLost.Error()) {
		t.Fatalf("loss: %+v", r)
	}
}
