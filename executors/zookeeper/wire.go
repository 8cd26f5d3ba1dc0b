package zookeeper

import (
	"github.com/go-zookeeper/zk"
	"github.com/google/wire"

	"github.com/lock4go/lock4go/executor"
)

// Provide is [New] for wire: its cleanup closes the executor (not conn,
// which the application provides and owns).
func Provide(conn *zk.Conn, opts Options) (*Executor, func(), error) {
	e, err := New(conn, opts)
	if err != nil {
		return nil, nil, err
	}
	return e, func() { _ = e.Close() }, nil
}

// ProviderSet provides an *Executor from a *zk.Conn and [Options], bound to
// executor.Executor. It never dials: the application provides the conn.
var ProviderSet = wire.NewSet(Provide, wire.Bind(new(executor.Executor), new(*Executor)))
