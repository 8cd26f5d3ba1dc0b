package redis_test

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/lock4go/lock4go/internal/testserver"
)

// The package's servers: one standalone redis-server started by TestMain,
// and a 3-master Redis Cluster started by the first test that needs it.
var (
	srv    *testserver.Server
	srvErr error

	clusterOnce sync.Once
	cluster     *testserver.Cluster
	clusterErr  error
)

func TestMain(m *testing.M) {
	srv, srvErr = testserver.StartRedis()
	code := m.Run()
	if srv != nil {
		_ = srv.Resume() // in case a fault test failed before its cleanup
		_ = srv.Stop()
	}
	if cluster != nil {
		_ = cluster.Stop()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// redisCluster returns the package's Redis Cluster, starting it on first use.
func redisCluster(t *testing.T) *testserver.Cluster {
	t.Helper()
	testserver.Check(t, srvErr)
	clusterOnce.Do(func() { cluster, clusterErr = testserver.StartRedisCluster(3, 0) })
	testserver.Check(t, clusterErr)
	return cluster
}
