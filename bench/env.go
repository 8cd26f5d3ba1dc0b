package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
	goredis "github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/lock4go/lock4go/internal/testserver"
)

// Env is the servers of one run and the clients made on them. It is safe
// for concurrent use.
type Env struct {
	RedisAddr, EtcdAddr, ZooKeeperAddr, PostgresAddr, MySQLAddr string

	// EtcdRequests counts the requests of every etcd client made by
	// [Env.EtcdClient].
	EtcdRequests *GRPCCounter
	// RedisSent counts the commands of every Redis client made by
	// [Env.RedisClient].
	RedisSent *PipelineCounter

	redisStats *goredis.Client // INFO, without the RedisSent hook

	servers []*testserver.Server
	mu      sync.Mutex
	closers []func() error
}

// Start starts redis-server, etcd, ZooKeeper, PostgreSQL and MariaDB on
// loopback.
// The error wraps [testserver.ErrNotInstalled] when one is missing.
func Start() (*Env, error) {
	e := &Env{EtcdRequests: &GRPCCounter{}, RedisSent: &PipelineCounter{}}
	for _, s := range []struct {
		start func() (*testserver.Server, error)
		addr  *string
	}{
		{func() (*testserver.Server, error) { return testserver.StartRedis() }, &e.RedisAddr},
		{testserver.StartEtcd, &e.EtcdAddr},
		{testserver.StartZooKeeper, &e.ZooKeeperAddr},
		{startPostgres, &e.PostgresAddr},
		{startMySQL, &e.MySQLAddr},
	} {
		srv, err := s.start()
		if err != nil {
			return nil, errors.Join(err, e.Close())
		}
		e.servers = append(e.servers, srv)
		*s.addr = srv.Addr()
	}
	e.redisStats = goredis.NewClient(&goredis.Options{Addr: e.RedisAddr})
	e.onClose(e.redisStats.Close)
	return e, nil
}

// Counter returns the command counter of backend b.
func (e *Env) Counter(b Backend) Counter {
	switch b {
	case Redis:
		return RedisStats{Client: e.redisStats, Sent: e.RedisSent}
	case Etcd:
		return e.EtcdRequests
	case Postgres:
		return postgresCounter{e.PostgresAddr}
	case MySQL:
		return mysqlCounter{e.MySQLAddr}
	default:
		return ZooKeeperStats{Addr: e.ZooKeeperAddr}
	}
}

// serverPID returns the process ID of b's server, or 0 when the Env did
// not start it (a worker's Env).
func (e *Env) serverPID(b Backend) int {
	i := map[Backend]int{Redis: 0, Etcd: 1, ZooKeeper: 2, Postgres: 3, MySQL: 4}[b]
	if i >= len(e.servers) {
		return 0
	}
	return e.servers[i].PID()
}

// Close closes every client made by the Env, then stops the servers.
func (e *Env) Close() error {
	e.mu.Lock()
	closers := e.closers
	e.closers = nil
	e.mu.Unlock()
	var errs []error
	for i := len(closers) - 1; i >= 0; i-- {
		errs = append(errs, closers[i]())
	}
	for _, s := range e.servers {
		errs = append(errs, s.Stop())
	}
	e.servers = nil
	return errors.Join(errs...)
}

// onClose registers f to run at Close, before the servers stop (last
// registered, first run).
func (e *Env) onClose(f func() error) {
	e.mu.Lock()
	e.closers = append(e.closers, f)
	e.mu.Unlock()
}

// RedisClient returns a new client (its own pool) counted by
// [Env.RedisSent], with the given extra hooks. Its
// pool is large enough for 64 contenders, and go-redis bounds its calls by
// context deadlines (ContextTimeoutEnabled), as lock4go's Redis executor
// recommends.
func (e *Env) RedisClient(hooks ...goredis.Hook) *goredis.Client {
	c := goredis.NewClient(&goredis.Options{
		Addr: e.RedisAddr, PoolSize: 128, ContextTimeoutEnabled: true,
	})
	c.AddHook(e.RedisSent)
	for _, h := range hooks {
		c.AddHook(h)
	}
	e.onClose(c.Close)
	return c
}

// EtcdClient returns a new client whose requests [Env.EtcdRequests] counts.
func (e *Env) EtcdClient() (*clientv3.Client, error) {
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{e.EtcdAddr},
		DialTimeout: 5 * time.Second,
		DialOptions: e.EtcdRequests.DialOptions(),
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd client: %w", err)
	}
	e.onClose(c.Close)
	return c, nil
}

// ZooKeeperConn returns a new connected session (10s timeout).
func (e *Env) ZooKeeperConn(ctx context.Context) (*zk.Conn, error) {
	c, events, err := zk.Connect([]string{e.ZooKeeperAddr}, 10*time.Second, zk.WithLogger(nopLogger{}))
	if err != nil {
		return nil, fmt.Errorf("zookeeper connect: %w", err)
	}
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				e.onClose(func() error { c.Close(); return nil })
				return c, nil
			}
		case <-ctx.Done():
			c.Close()
			return nil, fmt.Errorf("zookeeper connect: %w", ctx.Err())
		}
	}
}

type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}
