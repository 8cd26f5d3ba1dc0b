package shedlock

import (
	"context"
	"fmt"
	"os"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
)

// RedisOptions configure a [Redis] executor. The zero value means the
// defaults each field names, which are ShedLock's.
type RedisOptions struct {
	// Name is the executor's name in a Template. Zero means
	// "shedlock-redis".
	Name string
	// Priority orders it among the Template's executors. Zero means 50.
	Priority int
	// KeyPrefix starts every key. Zero means "job-lock", ShedLock's.
	KeyPrefix string
	// Env is the environment part of the key. Zero means "default",
	// ShedLock's.
	Env string
	// Host names this process in the values it writes. Zero means the
	// host name.
	Host string
}

// Redis is an executor on ShedLock's Redis layout: a job's key is
// "<KeyPrefix>:<Env>:<name>" and holds "ADDED:<time>@<host>:<owner>" with
// a PX TTL. It is safe for concurrent use.
type Redis struct {
	client goredis.Scripter
	opts   RedisOptions
}

var (
	_ executor.Executor  = (*Redis)(nil)
	_ executor.Inspector = (*Redis)(nil)
)

// NewRedis returns an executor over client.
func NewRedis(client goredis.Scripter, opts RedisOptions) *Redis {
	if opts.Name == "" {
		opts.Name = "shedlock-redis"
	}
	if opts.Priority == 0 {
		opts.Priority = 50
	}
	if opts.KeyPrefix == "" {
		opts.KeyPrefix = "job-lock"
	}
	if opts.Env == "" {
		opts.Env = "default"
	}
	if opts.Host == "" {
		opts.Host, _ = os.Hostname()
	}
	return &Redis{client: client, opts: opts}
}

// Key returns the Redis key of the job name.
func (r *Redis) Key(name string) string { return r.opts.KeyPrefix + ":" + r.opts.Env + ":" + name }

// Name implements [executor.Executor].
func (r *Redis) Name() string { return r.opts.Name }

// Priority implements [executor.Executor].
func (r *Redis) Priority() int { return r.opts.Priority }

// Capabilities implements [executor.Executor]: none; Acquire never waits.
func (r *Redis) Capabilities() executor.Capabilities { return executor.Capabilities{} }

// The scripts. acquire is ShedLock's SET NX PX, returning the server's
// time in microseconds as the token; extend and release are ShedLock's
// updLuaScript and delLuaScript (its safeUpdate mode).
var (
	acquireScript = goredis.NewScript(`local key = KEYS[1]
local value, ttl = ARGV[1], ARGV[2]
if not redis.call('set', key, value, 'NX', 'PX', ttl) then return 0 end
local t = redis.call('time')
return tonumber(t[1]) * 1000000 + tonumber(t[2])`)
	extendScript = goredis.NewScript(`if redis.call('get', KEYS[1]) == ARGV[1] then
   return redis.call('pexpire', KEYS[1], ARGV[2])
else
   return 0
end`)
	releaseScript = goredis.NewScript(`if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end`)
)

// Acquire takes the job's key with one SET NX PX, as ShedLock does.
func (r *Redis) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	if err := req.ValidateFor(r.Capabilities()); err != nil {
		return nil, fmt.Errorf("shedlock: %w", err)
	}
	if req.Shared || req.Permits > 0 {
		return nil, fmt.Errorf("shedlock: %q: ShedLock's Redis layout has no read locks or permits: %w", req.Key, executor.ErrInvalidConfig)
	}
	l := &redisLease{r: r, key: r.Key(req.Key), start: time.Now()}
	l.value = "ADDED:" + l.start.UTC().Format("2006-01-02T15:04:05.000Z") + "@" + r.opts.Host + ":" + req.Owner
	tok, err := acquireScript.Run(ctx, r.client, []string{l.key}, l.value, leases.Millis(req.TTL)).Int64()
	switch {
	case err != nil:
		l.abandon(ctx)
		return nil, fmt.Errorf("shedlock: acquire %q: %w", req.Key, executor.AttemptError(ctx, err))
	case tok == 0:
		return nil, fmt.Errorf("shedlock: acquire %q: %w", req.Key, executor.ErrNotAcquired)
	}
	l.token = tok
	return l, nil
}

// Inspect implements [executor.Inspector]: the value ShedLock or lock4go
// wrote as the owner, and the key's remaining TTL; the token is unknown.
func (r *Redis) Inspect(ctx context.Context, name string) (executor.Holder, error) {
	key := r.Key(name)
	v, err := r.client.Eval(ctx, `return {redis.call('get', KEYS[1]), redis.call('pttl', KEYS[1])}`, []string{key}).Slice()
	if err != nil {
		return executor.Holder{}, fmt.Errorf("shedlock: inspect %q: %w: %w", name, executor.ErrBackend, err)
	}
	owner, ok := v[0].(string)
	if !ok {
		return executor.Holder{}, fmt.Errorf("shedlock: inspect %q: %w", name, executor.ErrLockNotHeld)
	}
	ms, _ := v[1].(int64)
	h := executor.Holder{Owner: owner, TTL: time.Duration(ms) * time.Millisecond}
	return executor.NewHolder(executor.KindLock, 0, []executor.Holder{h}, -1), nil
}
