package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// ShedLock's InternalRedisLockProvider scripts.
const (
	delLuaScript = `if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end`
	updLuaScript = `if redis.call('get', KEYS[1]) == ARGV[1] then
   return redis.call('pexpire', KEYS[1], ARGV[2])
else
   return 0
end`
)

// redisProvider is ShedLock's InternalRedisLockProvider over a
// single-node template: SET NX PX to lock; to unlock, the key's TTL set to
// what is left of lockAtLeastFor, or the key deleted.
type redisProvider struct {
	c     *goredis.Client
	safe  bool
	value string
}

func newRedis(addr string, safe bool) *redisProvider {
	return &redisProvider{c: goredis.NewClient(&goredis.Options{Addr: addr}), safe: safe}
}

func key(name string) string { return fmt.Sprintf("%s:%s:%s", "job-lock", "default", name) }

func (r *redisProvider) lock(ctx context.Context, c lockConfig) (bool, error) {
	host, _ := os.Hostname()
	var id [16]byte
	_, _ = rand.Read(id[:])
	r.value = fmt.Sprintf("ADDED:%s@%s:%s", time.Now().UTC().Format(time.RFC3339Nano), host, hex.EncodeToString(id[:]))
	ms := time.Until(c.createdAt.Add(c.atMostFor)).Milliseconds()
	err := r.c.Do(ctx, "SET", key(c.name), r.value, "NX", "PX", ms).Err()
	if err == goredis.Nil {
		return false, nil
	}
	return err == nil, err
}

func (r *redisProvider) unlock(ctx context.Context, c lockConfig) error {
	keep := time.Until(c.createdAt.Add(c.atLeastFor)).Milliseconds()
	k := key(c.name)
	switch {
	case keep <= 0 && r.safe:
		return r.c.Eval(ctx, delLuaScript, []string{k}, r.value).Err()
	case keep <= 0:
		return r.c.Del(ctx, k).Err()
	case r.safe:
		return r.c.Eval(ctx, updLuaScript, []string{k}, r.value, keep).Err()
	}
	if err := r.c.Do(ctx, "SET", k, r.value, "XX", "PX", keep).Err(); err != goredis.Nil {
		return err
	}
	return nil
}
