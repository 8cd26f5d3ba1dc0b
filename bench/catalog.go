package bench

import (
	"context"
	"errors"
	"time"

	"github.com/lock4go/lock4go/executor"
	letcd "github.com/lock4go/lock4go/executors/etcd"
	lredis "github.com/lock4go/lock4go/executors/redis"
	lzk "github.com/lock4go/lock4go/executors/zookeeper"
)

// Catalog is every subject of a run, in report order, grouped by backend.
type Catalog struct {
	Subjects []*Subject
}

// Close closes every subject.
func (c *Catalog) Close() error {
	var errs []error
	for _, s := range c.Subjects {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// NewCatalog makes every subject on env's servers.
func NewCatalog(ctx context.Context, env *Env) (*Catalog, error) {
	c := &Catalog{}
	add := func(s *Subject, err error) error {
		if err != nil {
			return err
		}
		c.Subjects = append(c.Subjects, s)
		return nil
	}
	rc := env.RedisClient()
	redisExec, etcdExec, zkExec := redisExecutor(env, lredis.Options{}), etcdExecutor(env), zkExecutor(env)
	ec, err := env.EtcdClient()
	if err != nil {
		return nil, err
	}
	zc, err := env.ZooKeeperConn(ctx)
	if err != nil {
		return nil, err
	}
	pgSteps, err := postgresSteps(ctx, env, add)
	if err != nil {
		return nil, err
	}
	mySteps, err := mysqlSteps(ctx, env, add)
	if err != nil {
		return nil, err
	}
	steps := []func() error{
		func() error { return add(RawRedis(rc), nil) },
		func() error { return add(RawRedisFenced(rc), nil) },
		func() error { return add(Lock4go(ctx, Redis, 1, redisExec)) },
		func() error { return add(BSMRedislock(rc, 10*time.Millisecond), nil) },
		func() error { return add(Redsync(rc), nil) },
		func() error { return add(RueidisLock(env.RedisAddr)) },
		func() error { return add(Lock4jPoll(rc, 100*time.Millisecond), nil) },
		func() error { return add(RawEtcd(ec), nil) },
		func() error { return add(Lock4go(ctx, Etcd, 1, etcdExec)) },
		func() error { return add(EtcdMutex(ec), nil) },
		func() error { return add(RawZooKeeper(zc)) },
		func() error { return add(Lock4go(ctx, ZooKeeper, 1, zkExec)) },
		func() error { return add(ZKLock(zc)) },
	}
	steps = append(append(steps, pgSteps...), mySteps...)
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, errors.Join(err, c.Close())
		}
	}
	return c, nil
}

// ByName returns the subject called name, or nil.
func (c *Catalog) ByName(name string) *Subject {
	for _, s := range c.Subjects {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// redisExecutor makes lock4go Redis executors with options o, each over a
// client of its own.
func redisExecutor(env *Env, o lredis.Options) ExecutorFactory {
	return func(context.Context) (executor.Executor, func() error, error) {
		e, err := lredis.New(env.RedisClient(), o)
		if err != nil {
			return nil, nil, err
		}
		return e, e.Close, nil
	}
}

// etcdExecutor makes lock4go etcd executors, each over a client of its own.
func etcdExecutor(env *Env) ExecutorFactory {
	return func(context.Context) (executor.Executor, func() error, error) {
		c, err := env.EtcdClient()
		if err != nil {
			return nil, nil, err
		}
		e, err := letcd.New(c, letcd.Options{Prefix: "lockbench-lock4go/"})
		if err != nil {
			return nil, nil, err
		}
		return e, e.Close, nil
	}
}

// zkExecutor makes lock4go ZooKeeper executors, each over a session of its
// own.
func zkExecutor(env *Env) ExecutorFactory {
	return func(ctx context.Context) (executor.Executor, func() error, error) {
		c, err := env.ZooKeeperConn(ctx)
		if err != nil {
			return nil, nil, err
		}
		e, err := lzk.New(c, lzk.Options{BasePath: "/lockbench-lock4go"})
		if err != nil {
			return nil, nil, err
		}
		return e, e.Close, nil
	}
}
