//go:build wireinject

package main

import (
	"github.com/google/wire"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/middleware"
)

// initOrderService builds an OrderService on the memory executor.
func initOrderService(cfg lock4go.Config, opts memory.Options, spec middleware.HTTPSpec) (*OrderService, error) {
	wire.Build(lock4go.ProviderSet, memory.ProviderSet, middleware.ProviderSet, executors, NewOrderService)
	return nil, nil
}
