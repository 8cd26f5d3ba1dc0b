package main

import (
	"context"
	"log"
	"net/http"
	"net/http/httptest"
)

func main() {
	svc, err := initOrderService(lockConfig(), memoryOptions(), paySpec())
	if err != nil {
		log.Fatal(err)
	}
	if err := svc.Pay(context.Background(), "42"); err != nil {
		log.Fatal(err)
	}
	rec := httptest.NewRecorder()
	svc.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/orders/43/pay", nil))
	log.Printf("HTTP status %d", rec.Code)
}
