package etcd

import (
	"github.com/google/wire"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
)

// Provide is [New] for wire: its cleanup closes the executor (not the
// client, which the application provides and owns).
func Provide(client *clientv3.Client, opts Options) (*Executor, func(), error) {
	e, err := New(client, opts)
	if err != nil {
		return nil, nil, err
	}
	return e, func() { _ = e.Close() }, nil
}

// ProviderSet provides an *Executor from a *clientv3.Client and [Options],
// bound to executor.Executor. It never dials: the application provides the
// client.
var ProviderSet = wire.NewSet(Provide, wire.Bind(new(executor.Executor), new(*Executor)))
