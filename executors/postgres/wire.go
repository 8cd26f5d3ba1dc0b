package postgres

import (
	"github.com/google/wire"

	"github.com/lock4go/lock4go/executor"
)

// ProviderSet provides an *Executor from a *pgxpool.Pool and [Options],
// bound to executor.Executor. It never constructs the pool, and does not
// run [Migrate].
var ProviderSet = wire.NewSet(New, wire.Bind(new(executor.Executor), new(*Executor)))
