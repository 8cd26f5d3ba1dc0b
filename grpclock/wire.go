package grpclock

import (
	"github.com/google/wire"

	"github.com/lock4go/lock4go"
)

// Specs are the per-full-method Specs of a server in a wire graph.
type Specs map[string]Spec

// ProvideLocks is [New] for wire.
func ProvideLocks(tpl *lock4go.Template, specs Specs) (*Locks, error) {
	return New(tpl, specs)
}

// ProviderSet provides [*Locks] from [Specs] for a *lock4go.Template;
// install them with [Locks.ServerOptions] and call [Locks.Check] once the
// services are registered.
var ProviderSet = wire.NewSet(ProvideLocks)
