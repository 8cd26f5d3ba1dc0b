package redis_test

import (
	"os"
	"sync"
	"testing"

	"github.com/lock4go/lock4go/internal/exectest"
	"github.com/lock4go/lock4go/internal/testserver"
)

// The package's servers: one standalone redis-server started by TestMain;
// a 3-master Redis Cluster, a redis-server with an ACL user and a TLS-only
// one, each started by the first test that needs it.
var (
	srv    *testserver.Server
	srvErr error

	clusterOnce sync.Once
	cluster     *testserver.Cluster
	clusterErr  error

	aclOnce sync.Once
	aclSrv  *testserver.Server
	aclErr  error

	tlsOnce  sync.Once
	tlsSrv   *testserver.Server
	tlsCerts *testserver.Certs
	tlsErr   error
)

func TestMain(m *testing.M) {
	srv, srvErr = testserver.StartRedis()
	code := m.Run()
	if tlsCerts != nil {
		_ = os.RemoveAll(tlsCerts.Dir)
	}
	if cluster != nil {
		_ = cluster.Stop()
	}
	exectest.Exit(code, srv, aclSrv, tlsSrv)
}

// aclServer returns the package's redis-server that is started with the
// user aclUser, whose rules are ACLRules("lock4go"), starting it on first
// use.
func aclServer(t *testing.T) *testserver.Server {
	t.Helper()
	testserver.Check(t, srvErr)
	aclOnce.Do(func() { aclSrv, aclErr = testserver.StartRedis(aclArgs()...) })
	testserver.Check(t, aclErr)
	return aclSrv
}

// tlsServer returns the package's TLS-only redis-server, which also has the
// user aclUser, and its certificates, starting it on first use.
func tlsServer(t *testing.T) (*testserver.Server, *testserver.Certs) {
	t.Helper()
	testserver.Check(t, srvErr)
	tlsOnce.Do(func() {
		dir, err := os.MkdirTemp("", "lock4go-redis-certs-*")
		if err != nil {
			tlsErr = err
			return
		}
		if tlsCerts, tlsErr = testserver.NewCerts(dir); tlsErr != nil {
			_ = os.RemoveAll(dir)
			return
		}
		tlsSrv, tlsErr = testserver.StartRedisTLS(tlsCerts, aclArgs()...)
	})
	testserver.Check(t, tlsErr)
	return tlsSrv, tlsCerts
}

// redisCluster returns the package's Redis Cluster, starting it on first use.
func redisCluster(t *testing.T) *testserver.Cluster {
	t.Helper()
	testserver.Check(t, srvErr)
	clusterOnce.Do(func() { cluster, clusterErr = testserver.StartRedisCluster(3, 0) })
	testserver.Check(t, clusterErr)
	return cluster
}
