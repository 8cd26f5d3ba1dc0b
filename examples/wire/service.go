package main

import (
	"context"
	"fmt"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
)

// OrderService pays orders under a lock per order.
type OrderService struct {
	tpl *lock4go.Template
}

// NewOrderService is an ordinary constructor; wire calls it, and so can you.
func NewOrderService(tpl *lock4go.Template) *OrderService { return &OrderService{tpl: tpl} }

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
