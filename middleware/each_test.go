package middleware_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/internal/mwtest"
	"github.com/lock4go/lock4go/keybuilder"
	"github.com/lock4go/lock4go/middleware"
)

func accountKey(t *testing.T, id string) string {
	t.Helper()
	k, err := keybuilder.Join(lock4go.DefaultKeyPrefix, "account", id)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Transfers lock both accounts (Spec.Each): transfers in opposite
// directions never deadlock and no account has two transfers at once.
func TestHTTP_each_transfers(t *testing.T) {
	e := mwtest.NewEnv(t)
	var mu sync.Mutex
	busy := map[string]bool{}
	spec := middleware.Spec{Name: "account", Each: []string{"json.from", "json.to"}, AcquireTimeout: 20 * time.Second}
	mux := http.NewServeMux()
	mux.Handle("POST /transfer", middleware.HTTP(e.Tpl, spec)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var from, to string
		fmt.Sscanf(string(body), `{"from":%q,"to":%q}`, &from, &to)
		accounts := []string{from, to}
		for _, a := range accounts {
			if lock4go.LockFrom(r.Context(), accountKey(t, a)) == nil {
				http.Error(w, "account "+a+" not locked", http.StatusInternalServerError)
				return
			}
		}
		mu.Lock()
		for _, a := range accounts {
			if busy[a] {
				mu.Unlock()
				http.Error(w, "two transfers on "+a, http.StatusConflict)
				return
			}
		}
		for _, a := range accounts {
			busy[a] = true
		}
		mu.Unlock()
		time.Sleep(time.Millisecond) // a transfer that takes time, so overlaps would show
		mu.Lock()
		for _, a := range accounts {
			busy[a] = false
		}
		mu.Unlock()
		io.WriteString(w, "done")
	})))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	pairs := [][2]string{{"A", "B"}, {"B", "A"}, {"B", "C"}, {"C", "A"}, {"A", "A"}}
	var wg sync.WaitGroup
	for i := range 40 {
		p := pairs[i%len(pairs)]
		wg.Go(func() {
			r := post(t.Context(), srv.Client(), srv.URL+"/transfer", fmt.Sprintf(`{"from":%q,"to":%q}`, p[0], p[1]))
			if r.err != nil || r.code != http.StatusOK {
				t.Errorf("transfer %v: %+v", p, r)
			}
		})
	}
	wg.Wait()
	if n := e.Tpl.HeldLocks(); n != 0 {
		t.Fatalf("HeldLocks = %d after all transfers", n)
	}

	// A busy account fails the transfer without running it; a missing
	// account is the client's fault.
	held, err := e.Tpl.Lock(t.Context(), accountKey(t, "C"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release(t.Context())
	noWait := spec
	noWait.NoWait = true
	mux2 := http.NewServeMux()
	ran := false
	mux2.Handle("POST /transfer", middleware.HTTP(e.Tpl, noWait)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran = true })))
	srv2 := httptest.NewServer(mux2)
	defer srv2.Close()
	if r := post(t.Context(), srv2.Client(), srv2.URL+"/transfer", `{"from":"A","to":"C"}`); r.code != http.StatusTooManyRequests || ran {
		t.Fatalf("transfer to a busy account: %+v (handler ran: %v), want 429", r, ran)
	}
	if r := post(t.Context(), srv2.Client(), srv2.URL+"/transfer", `{"from":"A"}`); r.code != http.StatusBadRequest || ran {
		t.Fatalf("transfer without to: %+v, want 400", r)
	}
	if n := e.Tpl.HeldLocks(); n != 1 {
		t.Fatalf("HeldLocks = %d, want only the test's", n)
	}
}

// Spec.Shared lets reads of one key run together while a write waits for
// them; Spec.Permits bounds the requests of one key running at once.
func TestHTTP_sharedAndPermits(t *testing.T) {
	e := mwtest.NewEnv(t)
	var mu sync.Mutex
	inside, peak := map[string]int{}, map[string]int{}
	gate := make(chan struct{})
	handler := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			inside[name]++
			peak[name] = max(peak[name], inside[name])
			mu.Unlock()
			<-gate
			mu.Lock()
			inside[name]--
			mu.Unlock()
		}
	}
	mux := http.NewServeMux()
	mux.Handle("GET /doc/{id}", middleware.HTTP(e.Tpl, middleware.Spec{Name: "doc", Keys: []string{"path.id"}, Shared: true})(handler("read")))
	mux.Handle("PUT /doc/{id}", middleware.HTTP(e.Tpl, middleware.Spec{Name: "doc", Keys: []string{"path.id"}, NoWait: true})(handler("write")))
	mux.Handle("POST /render/{id}", middleware.HTTP(e.Tpl, middleware.Spec{Name: "render", Permits: 2, NoWait: true})(handler("render")))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	do := func(method, path string) int {
		req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL+path, nil)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Error(err)
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	codes := make(chan int, 10)
	for range 3 {
		go func() { codes <- do("GET", "/doc/1") }()
	}
	for range 2 {
		go func() { codes <- do("POST", "/render/x") }()
	}
	waitHeld := func(n int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for e.Tpl.HeldLocks() < n {
			if time.Now().After(deadline) {
				t.Fatalf("HeldLocks = %d, want %d", e.Tpl.HeldLocks(), n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitHeld(5) // three readers and two permits hold at once
	if c := do("PUT", "/doc/1"); c != http.StatusTooManyRequests {
		t.Errorf("write beside readers = %d, want 429", c)
	}
	if c := do("POST", "/render/y"); c != http.StatusTooManyRequests {
		t.Errorf("third render = %d, want 429", c)
	}
	close(gate)
	for range 5 {
		if c := <-codes; c != http.StatusOK {
			t.Errorf("status %d, want 200", c)
		}
	}
	if peak["read"] != 3 || peak["render"] != 2 || peak["write"] != 0 {
		t.Fatalf("peaks %v, want 3 readers, 2 renders, no writer", peak)
	}
	if _, err := middleware.NewHTTP(e.Tpl, middleware.Spec{Shared: true, Permits: 2}); err == nil {
		t.Error("Shared with Permits accepted")
	}
}
