package redlock

import (
	"github.com/google/wire"

	"github.com/lock4go/lock4go/executor"
)

// ProviderSet provides an *Executor from the masters' go-redis clients
// ([]redis.UniversalClient) and [Options], bound to executor.Executor. It
// never constructs the clients.
var ProviderSet = wire.NewSet(New, wire.Bind(new(executor.Executor), new(*Executor)))
