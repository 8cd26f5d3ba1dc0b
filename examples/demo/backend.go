package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
	goredis "github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	etcdexec "github.com/lock4go/lock4go/executors/etcd"
	redisexec "github.com/lock4go/lock4go/executors/redis"
	zkexec "github.com/lock4go/lock4go/executors/zookeeper"
)

// backend creates one executor per service instance, each with a client of
// its own (like separate processes), and can take a held lock away from
// under its holder to show that the loss is detected.
type backend interface {
	// Describe names the backend for the report.
	Describe() string
	// NewExecutor returns a new executor with its own client, and a function
	// that closes both.
	NewExecutor() (executor.Executor, func(), error)
	// Steal removes l's lock behind its holder's back.
	Steal(ctx context.Context, l *lock4go.Lock) error
	// StealNote says what Steal does, for the report: "deleted its key in
	// Redis (as an eviction would)".
	StealNote() string
	// InspectFlags returns the flags of `lock4go inspect` that reach this
	// backend and the demo's namespace in it.
	InspectFlags() string
	// Close releases what the backend started.
	Close()
}

// etcdPrefix is the demo's namespace in etcd: a lock on key k lives under
// "<etcdPrefix>k/".
const etcdPrefix = "lock4go-demo/"

// etcdBackend uses etcd: the embedded server unless endpoints are given.
type etcdBackend struct {
	endpoints []string
	embedded  *embeddedEtcd
	admin     *clientv3.Client
}

func newEtcdBackend(endpoints string) (*etcdBackend, error) {
	b := &etcdBackend{}
	if endpoints == "" {
		srv, err := startEtcd()
		if err != nil {
			return nil, err
		}
		b.embedded = srv
		b.endpoints = []string{srv.Endpoint()}
	} else {
		b.endpoints = strings.Split(endpoints, ",")
	}
	admin, err := b.client()
	if err != nil {
		b.Close()
		return nil, err
	}
	b.admin = admin
	return b, nil
}

func (b *etcdBackend) client() (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{Endpoints: b.endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
}

func (b *etcdBackend) Describe() string {
	if b.embedded != nil {
		return "embedded etcd at " + b.endpoints[0]
	}
	return "etcd at " + strings.Join(b.endpoints, ",")
}

func (b *etcdBackend) NewExecutor() (executor.Executor, func(), error) {
	c, err := b.client()
	if err != nil {
		return nil, nil, err
	}
	e, err := etcdexec.New(c, etcdexec.Options{Prefix: etcdPrefix, Logger: quiet})
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return e, func() { e.Close(); c.Close() }, nil
}

// Steal revokes the lease under the lock's key, as an operator running
// `etcdctl lease revoke` would.
func (b *etcdBackend) Steal(ctx context.Context, l *lock4go.Lock) error {
	resp, err := b.admin.Get(ctx, etcdPrefix+l.Key()+"/", clientv3.WithPrefix())
	if err != nil {
		return err
	}
	for _, kv := range resp.Kvs {
		if kv.CreateRevision == l.Token() {
			_, err := b.admin.Revoke(ctx, clientv3.LeaseID(kv.Lease))
			return err
		}
	}
	return errors.New("lock key not found")
}

func (b *etcdBackend) StealNote() string {
	return "revoked its lease in etcd (as `etcdctl lease revoke` would), which deleted the lock's key"
}

func (b *etcdBackend) InspectFlags() string {
	return "--etcd " + strings.Join(b.endpoints, ",") + " --etcd-prefix " + etcdPrefix
}

func (b *etcdBackend) Close() {
	if b.admin != nil {
		b.admin.Close()
	}
	if b.embedded != nil {
		b.embedded.Close()
	}
}

// redisBackend uses a Redis server.
type redisBackend struct {
	addr  string
	admin *goredis.Client
}

func newRedisBackend(addr string) (*redisBackend, error) {
	admin := goredis.NewClient(&goredis.Options{Addr: addr})
	if err := admin.Ping(context.Background()).Err(); err != nil {
		admin.Close()
		return nil, fmt.Errorf("redis at %s: %w", addr, err)
	}
	return &redisBackend{addr: addr, admin: admin}, nil
}

func (b *redisBackend) Describe() string { return "redis at " + b.addr }

func (b *redisBackend) NewExecutor() (executor.Executor, func(), error) {
	c := goredis.NewClient(&goredis.Options{Addr: b.addr, ContextTimeoutEnabled: true})
	e, err := redisexec.New(c, redisexec.Options{})
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return e, func() { e.Close(); c.Close() }, nil
}

// Steal deletes the lock key, as an eviction or a failover without the
// write would.
func (b *redisBackend) Steal(ctx context.Context, l *lock4go.Lock) error {
	return b.admin.Del(ctx, l.Key()).Err()
}

func (b *redisBackend) StealNote() string {
	return "deleted the lock's key in Redis (as an eviction, or a failover that lost the write, would)"
}

func (b *redisBackend) InspectFlags() string { return "--redis " + b.addr }

func (b *redisBackend) Close() { b.admin.Close() }

// zkBackend uses a ZooKeeper ensemble.
type zkBackend struct {
	servers []string
	admin   *zk.Conn
	exec    *zkexec.Executor // the first executor made, for LockPath
}

func newZKBackend(servers string) (*zkBackend, error) {
	b := &zkBackend{servers: strings.Split(servers, ",")}
	c, _, err := zkexec.Dial(b.servers, 5*time.Second)
	if err != nil {
		return nil, err
	}
	b.admin = c
	return b, nil
}

func (b *zkBackend) Describe() string { return "zookeeper at " + strings.Join(b.servers, ",") }

func (b *zkBackend) NewExecutor() (executor.Executor, func(), error) {
	c, _, err := zkexec.Dial(b.servers, 5*time.Second)
	if err != nil {
		return nil, nil, err
	}
	e, err := zkexec.New(c, zkexec.Options{})
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	if b.exec == nil {
		b.exec = e
	}
	return e, func() { e.Close(); c.Close() }, nil
}

// Steal deletes the lock's node, as an operator would with zkCli.
func (b *zkBackend) Steal(_ context.Context, l *lock4go.Lock) error {
	parent := b.exec.LockPath(l.Key())
	children, _, err := b.admin.Children(parent)
	if err != nil {
		return err
	}
	for _, c := range children {
		data, st, err := b.admin.Get(parent + "/" + c)
		if err == nil && string(data) == l.Owner() {
			return b.admin.Delete(parent+"/"+c, st.Version)
		}
	}
	return errors.New("lock node not found")
}

func (b *zkBackend) StealNote() string {
	return "deleted the lock's node in ZooKeeper (as an operator with zkCli would)"
}

func (b *zkBackend) InspectFlags() string {
	return "--zookeeper " + strings.Join(b.servers, ",") + " --zk-base-path " + zkexec.DefaultBasePath
}

func (b *zkBackend) Close() { b.admin.Close() }

// quiet discards the library logs: the demo's report tells what happened.
var quiet = slog.New(slog.DiscardHandler)
