package redis

import (
	"github.com/google/wire"

	"github.com/lock4go/lock4go/executor"
)

// ProviderSet provides an *Executor from a go-redis client (bind your
// *redis.Client or *redis.ClusterClient to redis.UniversalClient) and
// [Options], bound to executor.Executor. It never constructs the client.
var ProviderSet = wire.NewSet(New, wire.Bind(new(executor.Executor), new(*Executor)))
