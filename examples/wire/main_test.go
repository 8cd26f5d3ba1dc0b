package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestInitOrderService(t *testing.T) {
	svc, err := initOrderService(lockConfig(), memoryOptions(), paySpec())
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Pay(t.Context(), "1"); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	svc.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/orders/2/pay", nil))
	if rec.Code != http.StatusNoContent {
		t.Fatalf("status %d", rec.Code)
	}
}
