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
