package keybuilder_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/lock4go/lock4go/keybuilder"
)

// A builder keys each request by its path wildcard and a header, as
// middleware.HTTP does with a Spec's Keys.
func ExampleNewHTTP() {
	b, err := keybuilder.NewHTTP("lock4go", "pay", []string{"path.id", "header.X-Tenant"})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /orders/{id}/pay", func(w http.ResponseWriter, r *http.Request) {
		key, err := b.Key(r)
		fmt.Println(key, err)
	})
	r := httptest.NewRequest("POST", "/orders/42/pay", nil)
	r.Header.Set("X-Tenant", "acme")
	mux.ServeHTTP(httptest.NewRecorder(), r)
	// Output: lock4go:pay#42:acme <nil>
}

// Join builds the same keys by hand, to lock in code what middleware locks.
func ExampleJoin() {
	key, err := keybuilder.Join("lock4go", "pay", "42", "acme")
	fmt.Println(key, err)
	// Output: lock4go:pay#42:acme <nil>
}

// Fields keys any value by its struct fields, for lock4go.Locked (the
// decorator of queue consumers, cron jobs and service methods), with the
// escaping of HTTP and gRPC keys.
func ExampleFields() {
	type Order struct{ ID string }
	type Refund struct {
		Order  *Order
		Amount int64
	}
	key, err := keybuilder.Fields[Refund]("lock4go", "refund", []string{"Order.ID"})
	if err != nil {
		panic(err)
	}
	k, err := key(Refund{Order: &Order{ID: "42:a"}, Amount: 100})
	fmt.Println(k, err)
	_, err = key(Refund{}) // no order: the caller's fault
	fmt.Println(err)
	// Output:
	// lock4go:refund#42%3Aa <nil>
	// keybuilder: key part "Order.ID": missing or empty: lock4go: invalid key
}
