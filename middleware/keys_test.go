package middleware_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/internal/mwtest"
	"github.com/lock4go/lock4go/keybuilder"
	"github.com/lock4go/lock4go/middleware"
)

// TestHTTP_queryAlsoInForm covers POST /pay?id=8 with the body id=7 to a
// handler that reads r.FormValue("id"): it would pay order 7 under the lock
// of order 8. The request is refused; a body without id gets through, and
// the handler reads the body unchanged.
func TestHTTP_queryAlsoInForm(t *testing.T) {
	e := mwtest.NewEnv(t)
	var paid []string
	var mu sync.Mutex
	srv := serve(t, e, middleware.Spec{Name: "pay", Keys: []string{"query.id"}},
		func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			paid = append(paid, r.FormValue("id")+"/"+r.FormValue("note"))
			mu.Unlock()
		})
	send := func(body string) int {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/orders/x?id=8", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := send("id=7&note=n1"); code != http.StatusBadRequest {
		t.Fatalf("query id=8, body id=7: got %d, want 400", code)
	}
	if code := send("note=" + strings.Repeat("n", 3000)); code != http.StatusOK {
		t.Fatalf("query id=8, body without id: got %d, want 200", code)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paid) != 1 || paid[0] != "8/"+strings.Repeat("n", 3000) {
		t.Fatalf("the handler paid %q", paid)
	}
}

// TestHTTP_stringIDs runs requests whose ids a handler decoding into an
// int64 `json:"id,string"` field sees as one order, "42", "042" and "0042":
// with json.id|int they share one lock, so while the first runs, the others
// are refused.
func TestHTTP_stringIDs(t *testing.T) {
	e := mwtest.NewEnv(t)
	started := make(chan struct{}, 3)
	gate := make(chan struct{})
	var runs atomic.Int32
	srv := serve(t, e, middleware.Spec{Name: "pay", Keys: []string{"json.id|int"}, NoWait: true},
		func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				ID int64 `json:"id,string"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.ID != 42 {
				http.Error(w, "bad id", http.StatusBadRequest)
				return
			}
			runs.Add(1)
			started <- struct{}{}
			<-gate
		})
	first := make(chan result, 1)
	go func() { first <- post(t.Context(), srv.Client(), srv.URL+"/orders/x", `{"id":"42"}`) }()
	<-started
	for _, body := range []string{`{"id":"042"}`, `{"id":"0042"}`} {
		if r := post(t.Context(), srv.Client(), srv.URL+"/orders/x", body); r.code != http.StatusTooManyRequests {
			t.Errorf("%s while order 42 runs: got %+v, want 429", body, r)
		}
	}
	close(gate)
	if r := <-first; r.code != http.StatusOK {
		t.Fatalf("first request: %+v", r)
	}
	if runs.Load() != 1 {
		t.Fatalf("%d runs of order 42 at once", runs.Load())
	}
}

func TestHTTP_timeoutHandlerInside(t *testing.T) {
	e := mwtest.NewEnv(t)
	mw := middleware.HTTP(e.Tpl, middleware.Spec{Name: "pay"})
	defer func() {
		p := recover()
		err, _ := p.(error)
		if !errors.Is(err, lock4go.ErrInvalidConfig) || !strings.Contains(err.Error(), "TimeoutHandler") {
			t.Fatalf("wrapping an http.TimeoutHandler: recovered %v, want a panic with ErrInvalidConfig", p)
		}
	}()
	mw(http.TimeoutHandler(http.NotFoundHandler(), time.Second, ""))
}

// TestHTTP_timeoutHandlerOutside checks the documented order: the
// TimeoutHandler answers 503 at its timeout, and the lock stays held until
// the handler it abandoned has returned.
func TestHTTP_timeoutHandlerOutside(t *testing.T) {
	e := mwtest.NewEnv(t)
	spec := middleware.Spec{Name: "pay", Keys: []string{"path.id"}, NoWait: true}
	started := make(chan struct{})
	gate := make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("POST /slow/{id}", http.TimeoutHandler(middleware.HTTP(e.Tpl, spec)(http.HandlerFunc(
		func(w http.ResponseWriter, r *http.Request) {
			close(started)
			<-gate // ignores its context, as a handler stuck in a call may
		})), 200*time.Millisecond, "timeout"))
	mux.Handle("POST /fast/{id}", middleware.HTTP(e.Tpl, spec)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	if r := post(t.Context(), srv.Client(), srv.URL+"/slow/1", ""); r.code != http.StatusServiceUnavailable || r.body != "timeout" {
		t.Fatalf("slow request: %+v, want the TimeoutHandler's 503", r)
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler never started (the lock was not taken before the timeout)")
	}
	if r := post(t.Context(), srv.Client(), srv.URL+"/fast/1", ""); r.code != http.StatusTooManyRequests {
		t.Fatalf("order 1 while the timed-out handler still runs: %+v, want 429", r)
	}
	close(gate)
	e.WaitEvent(t, lock4go.EventReleased, lock4go.DefaultKeyPrefix+":pay#1")
	if r := post(t.Context(), srv.Client(), srv.URL+"/fast/1", ""); r.code != http.StatusOK {
		t.Fatalf("order 1 after the handler returned: %+v", r)
	}
}

// TestHTTP_bodyTooLarge: a body over an outer http.MaxBytesReader, or over
// the builder's own cap, is answered 413 (Content Too Large), not 400: the
// client's request is fine but for its size.
func TestHTTP_bodyTooLarge(t *testing.T) {
	e := mwtest.NewEnv(t)
	var runs atomic.Int32
	h := func(w http.ResponseWriter, r *http.Request) { runs.Add(1) }
	mw := middleware.HTTP(e.Tpl, middleware.Spec{Name: "pay", Keys: []string{"json.id"}},
		middleware.WithKeyOptions(keybuilder.WithMaxBodyBytes(64)))
	for _, c := range []struct {
		name string
		h    http.Handler
		body string
	}{
		{"outer MaxBytesReader", http.MaxBytesHandler(mw(http.HandlerFunc(h)), 16), `{"id":"7","pad":"xxxxxxxxxxxx"}`},
		{"the builder's cap", mw(http.HandlerFunc(h)), `{"id":"7","pad":"` + strings.Repeat("x", 100) + `"}`},
	} {
		for _, chunked := range []bool{false, true} {
			r := httptest.NewRequest("POST", "/pay", strings.NewReader(c.body))
			r.Header.Set("Content-Type", "application/json")
			if chunked {
				r.ContentLength = -1 // read before refused
			}
			w := httptest.NewRecorder()
			c.h.ServeHTTP(w, r)
			if w.Code != http.StatusRequestEntityTooLarge {
				t.Errorf("%s (chunked %v): got %d %q, want 413", c.name, chunked, w.Code, w.Body)
			}
		}
	}
	if runs.Load() != 0 {
		t.Fatal("the handler ran without a key")
	}
}
