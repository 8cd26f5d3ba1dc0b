package etcd_test

import (
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testserver"
)

// One etcd for the package; fault tests that stop or pause a server start
// their own.
var (
	srv    *testserver.Server
	srvErr error
)

func TestMain(m *testing.M) {
	srv, srvErr = testserver.StartEtcd()
	code := m.Run()
	stopAuthServer()
	exectest.Exit(code, srv)
}

// newClient returns a client of endpoints, closed when the test ends.
func newClient(tb testing.TB, endpoints ...string) *clientv3.Client {
	tb.Helper()
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cli.Close() })
	return cli
}

// newExec returns an executor over cli, closed when the test ends (before
// cli, whose cleanup was registered first).
func newExec(tb testing.TB, cli *clientv3.Client, opts etcd.Options) *etcd.Executor {
	tb.Helper()
	e, err := etcd.New(cli, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = e.Close() })
	return e
}
