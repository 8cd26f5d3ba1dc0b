package lock4go

import (
	"github.com/google/wire"

	"github.com/lock4go/lock4go/executor"
)

// Executors is the list of executors a Template is built from, for
// dependency injection: wire cannot fill a variadic parameter, so an
// application provides this slice from the executors it has.
type Executors []executor.Executor

// NewFromExecutors is [New] with the executors as one slice, for wire.
func NewFromExecutors(cfg Config, execs Executors) (*Template, error) {
	return New(cfg, execs...)
}

// ProviderSet provides a *Template from a [Config] and [Executors]. It
// constructs no clients and no executors: the application provides them.
var ProviderSet = wire.NewSet(NewFromExecutors)
