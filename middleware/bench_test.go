package middleware_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/internal/mwtest"
	"github.com/lock4go/lock4go/keybuilder"
	"github.com/lock4go/lock4go/middleware"
)

// discard is a ResponseWriter that allocates nothing.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}

// BenchmarkHTTP compares a bare handler with the same handler behind the
// middleware on the memory executor: the difference is the middleware's
// overhead (key building, lock, context, release).
func BenchmarkHTTP(b *testing.B) {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		b.Fatal(err)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	r := httptest.NewRequest("POST", "/orders/42", nil)
	r.Pattern = route
	r.SetPathValue("id", "42")
	w := discard{h: http.Header{}}
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h.ServeHTTP(w, r)
		}
	})
	b.Run("template", func(b *testing.B) {
		// What the middleware asks of the Template per request: the floor.
		ctx := context.Background()
		key, err := keybuilder.Join(lock4go.DefaultKeyPrefix, route, "42")
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			l, err := tpl.Lock(ctx, key)
			if err != nil {
				b.Fatal(err)
			}
			_, cancel := l.Context(ctx)
			cancel()
			l.Release(ctx)
		}
	})
	b.Run("middleware", func(b *testing.B) {
		mw := middleware.HTTP(tpl, middleware.Spec{Keys: []string{"path.id"}})(h)
		b.ReportAllocs()
		for b.Loop() {
			mw.ServeHTTP(w, r)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		mw := middleware.HTTP(tpl, middleware.Spec{Keys: []string{"query.id"}})(h)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			r := httptest.NewRequest("POST", "/orders", nil)
			r.Pattern = route
			r.URL.RawQuery = "id=" + mwtest.RandomID()
			for pb.Next() {
				mw.ServeHTTP(w, r)
			}
		})
	})
}
