package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/middleware"
)

// OrderService pays orders under a lock per order, in code and over HTTP.
type OrderService struct {
	tpl  *lock4go.Template
	lock middleware.HTTPMiddleware
}

// NewOrderService is an ordinary constructor; wire calls it, and so can you.
func NewOrderService(tpl *lock4go.Template, lock middleware.HTTPMiddleware) *OrderService {
	return &OrderService{tpl: tpl, lock: lock}
}

// Handler serves POST /orders/{id}/pay, one payment per order at a time.
func (s *OrderService) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /orders/{id}/pay", s.lock(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("paying order", r.PathValue("id"), "over HTTP")
		w.WriteHeader(http.StatusNoContent)
	})))
	return mux
}

// Pay pays one order while holding its lock.
func (s *OrderService) Pay(ctx context.Context, order string) error {
	return s.tpl.Do(ctx, "lock4go:pay#"+order, func(ctx context.Context) error {
		fmt.Println("paying order", order)
		return nil
	})
}

// executors lists the executors the Template uses. An application with
// several backends lists them all here.
func executors(e executor.Executor) lock4go.Executors { return lock4go.Executors{e} }
