// Package testserver starts real redis-server, ZooKeeper, etcd, PostgreSQL
// and PgBouncer processes on free loopback ports, each in its own temporary
// directory, for tests.
//
// A test package starts the servers it needs once, in TestMain, keeps the
// start error and calls [Check] at the top of each test: a server that is not
// installed skips the test (naming `make setup`), or fails it when
// LOCK4GO_REQUIRE_BACKENDS=1; any other start error fails it.
//
//	var redisSrv *testserver.Server
//	var redisErr error
//
//	func TestMain(m *testing.M) {
//		redisSrv, redisErr = testserver.StartRedis()
//		code := m.Run()
//		if redisSrv != nil {
//			_ = redisSrv.Stop()
//		}
//		os.Exit(code)
//	}
//
//	func TestSomething(t *testing.T) {
//		testserver.Check(t, redisErr)
//		// use redisSrv.Addr()
//	}
//
// A [Server] can be stopped, killed (SIGKILL), paused (SIGSTOP), resumed
// (SIGCONT) and restarted on the same port with the same data directory, to
// test failures. A [Cluster] groups the members of a Redis Cluster, a
// ZooKeeper ensemble or an etcd cluster; a [Sentinel] is a Redis master, its
// replica and three redis-sentinel processes. [StartRedisTLS] starts a Redis
// that speaks TLS only, with the throw-away PKI of [NewCerts]. A [Proxy]
// sits between a client and a server and can cut, blackhole or half-drop
// its connections.
//
// Every process runs in its own process group with a parent-death signal, so
// it dies with the test binary even when that is killed (its temporary
// directory then stays behind); its output goes to a log file in its
// directory, never to the test output, and the last lines of that log are
// included in start errors. Signals go only to processes this package
// started.
package testserver
