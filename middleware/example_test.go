package middleware_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/middleware"
)

// One payment per order at a time: a second request for an order that is
// being paid gets 429 at once, other orders go ahead.
func ExampleHTTP() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	locked := middleware.HTTP(tpl, middleware.Spec{
		Keys:   []string{"path.id"}, // key "lock4go:POST /orders/%7Bid%7D/pay#<id>"
		NoWait: true,
	})

	inside, finish := make(chan struct{}), make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("POST /orders/{id}/pay", locked(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "42" {
			close(inside)
			<-finish
		}
		fmt.Fprintf(w, "paid order %s", r.PathValue("id"))
	})))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	pay := func(id string) {
		res, err := srv.Client().Post(srv.URL+"/orders/"+id+"/pay", "", nil)
		if err != nil {
			panic(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		fmt.Printf("order %s: %d %q retry-after=%q\n", id, res.StatusCode, body, res.Header.Get("Retry-After"))
	}

	first := make(chan struct{})
	go func() { pay("42"); close(first) }()
	<-inside // order 42 is being paid
	pay("42")
	pay("7")
	close(finish)
	<-first
	// Output:
	// order 42: 429 "request failed, please retry it." retry-after="1"
	// order 7: 200 "paid order 7" retry-after=""
	// order 42: 200 "paid order 42" retry-after=""
}
