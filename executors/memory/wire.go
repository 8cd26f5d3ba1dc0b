package memory

import (
	"github.com/google/wire"

	"github.com/lock4go/lock4go/executor"
)

// ProviderSet provides an *Executor from [Options], bound to
// executor.Executor.
var ProviderSet = wire.NewSet(New, wire.Bind(new(executor.Executor), new(*Executor)))
