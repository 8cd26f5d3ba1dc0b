package lockdebug_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/lockdebug"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// scene holds one lock with a hostile key, re-entered once, with two
// goroutines queued behind it and one busy TryLock recorded. It runs f
// while all of that holds, inside a synctest bubble.
func scene(t *testing.T, f func(t *testing.T, tpl *lock4go.Template, l *lock4go.Lock)) {
	synctest.Test(t, func(t *testing.T) {
		tpl, _ := lock4go.New(lock4go.Config{Logger: slog.New(slog.DiscardHandler)}, memory.New(memory.Options{}))
		const key = `order:<script>alert(1)</script>`
		l, err := tpl.Lock(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		// The failed TryLock comes before the waiters start, so that its
		// reason counts the holder alone ("1 caller"): started after them,
		// it would count whichever of them had queued by then.
		if _, err := tpl.TryLock(t.Context(), key); !errors.Is(err, lock4go.ErrNotAcquired) {
			t.Fatalf("TryLock on a held key = %v", err)
		}
		done := make(chan struct{})
		for range 2 {
			go func() {
				defer func() { done <- struct{}{} }()
				if w, err := tpl.Lock(t.Context(), key, lock4go.WithAcquireTimeout(time.Hour)); err == nil {
					_ = w.Release(t.Context())
				}
			}()
		}
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		f(t, tpl, l)
		_ = l.Release(t.Context())
		<-done
		<-done
		time.Sleep(time.Second) // the idle watchdog exits
	})
}

func get(t *testing.T, h http.Handler, method, target string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), method, target, nil))
	return rec.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHandler_json(t *testing.T) {
	scene(t, func(t *testing.T, tpl *lock4go.Template, l *lock4go.Lock) {
		r := get(t, lockdebug.Handler(tpl), http.MethodGet, "/debug/locks?format=json")
		if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("status %d, content type %q", r.StatusCode, r.Header.Get("Content-Type"))
		}
		text := body(t, r)
		var got struct {
			Templates []struct {
				Executors []struct {
					Name       string  `json:"name"`
					Health     string  `json:"health"`
					RoundTrips int     `json:"round_trips_last_minute"`
					P99        float64 `json:"p99_ms"`
				} `json:"executors"`
				Held []struct {
					Key         string   `json:"key"`
					Kind        string   `json:"kind"`
					Token       int64    `json:"token"`
					Owner       string   `json:"owner"`
					AgeMS       float64  `json:"age_ms"`
					LeaseLeftMS *float64 `json:"lease_left_ms"`
					Renewal     string   `json:"renewal"`
					Handles     int      `json:"handles"`
				} `json:"held"`
				Queues []struct {
					Key       string `json:"key"`
					Waiting   int    `json:"waiting"`
					Acquiring bool   `json:"acquiring"`
				} `json:"queues"`
				Failures []struct {
					Kind   string `json:"kind"`
					Key    string `json:"key"`
					Reason string `json:"reason"`
				} `json:"failures"`
			} `json:"templates"`
		}
		if err := json.Unmarshal([]byte(text), &got); err != nil {
			t.Fatalf("%v in %s", err, text)
		}
		if len(got.Templates) != 1 {
			t.Fatalf("templates: %s", text)
		}
		tv := got.Templates[0]
		if len(tv.Executors) != 1 || tv.Executors[0].Name != "memory" || tv.Executors[0].Health != "ok" || tv.Executors[0].RoundTrips != 1 {
			t.Errorf("executors = %+v", tv.Executors)
		}
		if len(tv.Held) != 1 {
			t.Fatalf("held = %+v", tv.Held)
		}
		h := tv.Held[0]
		if h.Key != l.Key() || h.Kind != "lock" || h.Token != l.Token() || h.Owner != l.Owner()[:8]+"…" ||
			h.AgeMS != 1500 || h.LeaseLeftMS == nil || *h.LeaseLeftMS != 30000-600-1500 || h.Renewal != "watchdog" || h.Handles != 1 {
			t.Errorf("held = %+v", h)
		}
		if len(tv.Queues) != 1 || tv.Queues[0].Key != l.Key() || tv.Queues[0].Waiting != 2 || tv.Queues[0].Acquiring {
			t.Errorf("queues = %+v, want 2 waiting on %q", tv.Queues, l.Key())
		}
		if len(tv.Failures) != 1 || tv.Failures[0].Kind != "not_acquired" || !strings.Contains(tv.Failures[0].Reason, "no attempt on the backend: 1 caller of this process held or awaited the key") {
			t.Errorf("failures = %+v", tv.Failures)
		}
		if strings.Contains(text, l.Owner()) {
			t.Error("the whole owner value is shown")
		}
	})
}

func TestHandler_html(t *testing.T) {
	scene(t, func(t *testing.T, tpl *lock4go.Template, l *lock4go.Lock) {
		r := get(t, lockdebug.Handler(tpl), http.MethodGet, "/debug/locks?refresh=5")
		text := body(t, r)
		if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("status %d, content type %q", r.StatusCode, r.Header.Get("Content-Type"))
		}
		if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
			t.Errorf("Content-Security-Policy = %q", csp)
		}
		for _, want := range []string{
			`<meta http-equiv="refresh" content="5">`,
			`order:&lt;script&gt;alert(1)&lt;/script&gt;`,
			fmt.Sprintf(`data-label="token">%d<`, l.Token()),
			`>` + l.Owner()[:8] + `…<`,
			`data-label="goroutines waiting">2<`,
			`1 held · 2 waiting · 1 recent failures`,
			`class="kind-not_acquired" data-label="kind">not_acquired<`,
		} {
			if !strings.Contains(text, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		for _, bad := range []string{"<script>", l.Owner(), "http://", "https://", "<link", "<img"} {
			if strings.Contains(text, bad) {
				t.Errorf("page contains %q", bad)
			}
		}
	})
}

func TestHandler_requests(t *testing.T) {
	tpl, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	h := lockdebug.Handler(tpl)
	tests := []struct {
		method, target string
		status         int
		empty          bool
	}{
		{http.MethodGet, "/debug/locks", http.StatusOK, false},
		{http.MethodHead, "/debug/locks", http.StatusOK, true},
		{http.MethodGet, "/debug/locks?format=html", http.StatusOK, false},
		{http.MethodPost, "/debug/locks", http.StatusMethodNotAllowed, false},
		{http.MethodGet, "/debug/locks?format=xml", http.StatusBadRequest, false},
		{http.MethodGet, "/debug/locks?refresh=0", http.StatusBadRequest, false},
		{http.MethodGet, "/debug/locks?refresh=x", http.StatusBadRequest, false},
		{http.MethodGet, "/debug/locks?refresh=3601", http.StatusBadRequest, false},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			r := get(t, h, tc.method, tc.target)
			b := body(t, r)
			if r.StatusCode != tc.status || (b == "") != tc.empty {
				t.Fatalf("status %d, %d bytes; want %d, empty %v", r.StatusCode, len(b), tc.status, tc.empty)
			}
			if tc.empty && r.Header.Get("Content-Length") == "0" {
				t.Fatal("HEAD without the length of the page")
			}
		})
	}
}

// With several Templates each has its own section; an empty Template says
// so instead of showing empty tables.
func TestHandler_severalTemplates(t *testing.T) {
	a, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	b, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	text := body(t, get(t, lockdebug.Handler(a, b), http.MethodGet, "/debug/locks"))
	for _, want := range []string{"<h2>Template 1</h2>", "<h2>Template 2</h2>", "No locks held.", "No goroutine waiting.", "No failures."} {
		if !strings.Contains(text, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(text, `id="held-0"`) {
		t.Error("an empty held table is shown")
	}
}

func TestHandler_panicsWithoutTemplate(t *testing.T) {
	for name, tpls := range map[string][]*lock4go.Template{"none": nil, "nil": {nil}} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			lockdebug.Handler(tpls...)
		})
	}
}
