package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
)

// backend is one connected lock backend and the executor that reads it.
type backend struct {
	kind  string // "redis", "redlock", "etcd", "zookeeper", "postgres" or "mysql"
	addr  string // where it is, without credentials, for messages
	exec  inspectExecutor
	close func()
	// breakNote tells, before a release --force, how the holder h of key
	// will learn that its lock was broken.
	breakNote func(ctx context.Context, key string, h executor.Holder) string
}

// inspectExecutor is what the commands need of an executor.
type inspectExecutor interface {
	executor.Executor
	executor.Inspector
	executor.ForceReleaser
}

// dialer connects to one kind of backend.
type dialer func(ctx context.Context, c *connFlags) (*backend, error)

// configured returns the kinds of backend the flags name, in a fixed order,
// restricted to --backend when it is given.
func (c *connFlags) configured() ([]string, error) {
	var kinds []string
	for _, k := range []struct{ kind, v string }{
		{"redis", c.redis}, {"redlock", c.redlock}, {"etcd", c.etcd}, {"zookeeper", c.zookeeper}, {"postgres", c.postgres}, {"mysql", c.mysql},
	} {
		if k.v != "" && (c.backend == "" || c.backend == k.kind) {
			kinds = append(kinds, k.kind)
		}
	}
	if len(kinds) == 0 {
		if c.backend != "" {
			return nil, usagef("--backend %s: no such backend configured (pass --%s, or set its LOCK4GO_ variable)", c.backend, c.backend)
		}
		return nil, usagef("no backend: pass --redis, --redlock, --etcd, --zookeeper, --postgres or --mysql (or set LOCK4GO_REDIS, LOCK4GO_REDLOCK, LOCK4GO_ETCD, LOCK4GO_ZOOKEEPER, LOCK4GO_POSTGRES, LOCK4GO_MYSQL)")
	}
	return kinds, nil
}

// dial connects to the backend of kind within --timeout.
func dial(ctx context.Context, c *connFlags, kind string) (*backend, error) {
	d := map[string]dialer{"redis": dialRedis, "redlock": dialRedlock, "etcd": dialEtcd, "zookeeper": dialZooKeeper, "postgres": dialPostgres, "mysql": dialMySQL}[kind]
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return d(ctx, c)
}

// dialOne connects to the one backend the flags name; commands other than
// inspect work on one backend.
func dialOne(ctx context.Context, c *connFlags) (*backend, error) {
	kinds, err := c.configured()
	if err != nil {
		return nil, err
	}
	if len(kinds) > 1 {
		return nil, usagef("this command works on one backend, and %s are configured: pick one with --backend", strings.Join(kinds, ", "))
	}
	return dial(ctx, c, kinds[0])
}

// address returns where the backend of kind is, without credentials, for
// messages about a backend that could not be dialled.
func (c *connFlags) address(kind string) string {
	switch kind {
	case "redis":
		if opt, err := goredis.ParseURL(redisURL(c.redis)); err == nil {
			return opt.Addr
		}
		return ""
	case "redlock":
		var addrs []string
		for _, u := range splitList(c.redlock) {
			if opt, err := goredis.ParseURL(redisURL(u)); err == nil {
				addrs = append(addrs, opt.Addr)
			}
		}
		return strings.Join(addrs, ",")
	case "etcd":
		return strings.Join(splitList(c.etcd), ",")
	case "postgres":
		return postgresAddress(c.postgres)
	case "mysql":
		return mysqlAddress(c.mysql)
	}
	hosts, _ := zkHosts(c.zookeeper)
	return strings.Join(hosts, ",")
}

// call bounds one call to the backend by --timeout.
func (c *connFlags) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.timeout)
}

// String names the backend for messages: "redis 127.0.0.1:6379".
func (b *backend) String() string { return fmt.Sprintf("%s %s", b.kind, b.addr) }

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// checkRights checks that the SQL executor e may do what the command
// does: every right Migrate's objects need (check), or, for a command
// that only reads (inspect, watch), only the right to inspect, so that an
// operator's read-only role may look. A read-only role that may not
// inspect either is told every right check wants, which includes the
// ones it lacks.
func checkRights(ctx context.Context, c *connFlags, e executor.Inspector, check func(context.Context) error) error {
	if !c.readOnly {
		return check(ctx)
	}
	_, err := e.Inspect(ctx, "lock4go:cli:probe")
	if err == nil || errors.Is(err, executor.ErrLockNotHeld) {
		return nil
	}
	if !errors.Is(err, executor.ErrInvalidConfig) {
		return err
	}
	if cerr := check(ctx); cerr != nil {
		return cerr
	}
	return err
}
