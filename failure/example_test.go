package failure_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/failure"
)

// HTTPStatus answers a busy lock with 429 and a Retry-After.
func ExampleHTTPStatus() {
	h := failure.HTTPStatus(failure.HTTPOptions{RetryAfter: 2 * time.Second})
	w := httptest.NewRecorder()
	h.ServeLockFailure(w, httptest.NewRequest("POST", "/orders/42/pay", nil), failure.Info{
		Key: "lock4go:pay#42",
		Err: lock4go.ErrNotAcquired,
	})
	fmt.Println(w.Code, w.Header().Get("Retry-After"))
	// Output: 429 2
}

// HTTPHandlerFunc adapts a function: here a JSON body instead of text.
func ExampleHTTPHandlerFunc() {
	h := failure.HTTPHandlerFunc(func(w http.ResponseWriter, r *http.Request, f failure.Info) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		fmt.Fprintln(w, `{"error":"order is being processed"}`)
	})
	w := httptest.NewRecorder()
	h.ServeLockFailure(w, httptest.NewRequest("POST", "/", nil), failure.Info{Err: lock4go.ErrNotAcquired})
	fmt.Print(w.Code, " ", w.Body.String())
	// Output: 409 {"error":"order is being processed"}
}
