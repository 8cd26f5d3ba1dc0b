package mysql

import (
	"github.com/google/wire"

	"github.com/lock4go/lock4go/executor"
)

// ProviderSet provides an *Executor from a *sql.DB and [Options], bound to
// executor.Executor. It never opens the *sql.DB, and does not run
// [Migrate].
var ProviderSet = wire.NewSet(New, wire.Bind(new(executor.Executor), new(*Executor)))
