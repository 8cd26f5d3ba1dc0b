package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	redsyncgoredis "github.com/go-redsync/redsync/v4/redis/goredis/v9"
	goredis "github.com/redis/go-redis/v9"
)

// errBusy is a raw floor's answer when the key is held.
var errBusy = errors.New("bench: busy")

// leaseTTL is the lease every subject asks for: long enough that no lock in
// a run expires, as with lock4go's default 30s watchdog lease.
const leaseTTL = 30 * time.Second

// releaseScript is the compare-and-delete every Redis lock uses.
var releaseScript = goredis.NewScript(`if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`)

func owner() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// setNX is one SET key owner NX PX attempt and its compare-and-delete.
func setNX(ctx context.Context, c goredis.UniversalClient, key string) (Unlock, error) {
	own := owner()
	ok, err := c.SetNX(ctx, key, own, leaseTTL).Result()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errBusy
	}
	return compareAndDelete(c, key, own), nil
}

// compareAndDelete releases key if it still holds val.
func compareAndDelete(c goredis.UniversalClient, key, val string) Unlock {
	return func(ctx context.Context) error {
		n, err := releaseScript.Run(ctx, c, []string{key}, val).Int()
		if err == nil && n != 1 {
			err = fmt.Errorf("release of %q: not held", key)
		}
		return err
	}
}

// RawRedis is the Redis floor: SET NX PX, then a Lua compare-and-delete
// (EVALSHA), with no waiting.
func RawRedis(c goredis.UniversalClient) *Subject {
	return &Subject{
		Name: "raw redis", Backend: Redis, Kind: KindRaw,
		Note:      "SET NX PX + EVALSHA compare-and-delete",
		newLocker: shared(LockerFunc(func(ctx context.Context, key string) (Unlock, error) { return setNX(ctx, c, key) })),
	}
}

// fencedAcquire is the least a fenced Redis lock can send: one script that
// reads the server clock for the token (TIME: a token must grow across
// holders, which no client clock ensures) and sets the key to owner and
// token if it is free. It returns the value it wrote, or nil when busy.
var fencedAcquire = goredis.NewScript(`local t = redis.call("time")
local v = ARGV[1] .. t[1] .. t[2]
if redis.call("set", KEYS[1], v, "NX", "PX", ARGV[2]) then return v end
return false`)

// RawRedisFenced is the floor of a Redis lock with a fencing token:
// [fencedAcquire], then the compare-and-delete of [RawRedis], with no
// waiting. Against [RawRedis] it is what the token alone costs (a script
// where SET NX PX is a plain command, and TIME); against lock4go, what the
// library adds.
func RawRedisFenced(c goredis.UniversalClient) *Subject {
	ttl := fmt.Sprint(leaseTTL.Milliseconds())
	return &Subject{
		Name: "raw redis, fenced", Backend: Redis, Kind: KindRaw,
		Note: "EVALSHA TIME + SET NX PX (token in the value) + EVALSHA compare-and-delete",
		newLocker: shared(LockerFunc(func(ctx context.Context, key string) (Unlock, error) {
			v, err := fencedAcquire.Run(ctx, c, []string{key}, owner(), ttl).Text()
			if errors.Is(err, goredis.Nil) {
				return nil, errBusy
			}
			if err != nil {
				return nil, err
			}
			return compareAndDelete(c, key, v), nil
		})),
	}
}

// Lock4jPoll is Lock4j's RedisTemplateLockExecutor loop in Go: SET NX PX,
// and while busy sleep the fixed retry interval (100ms) until the acquire
// timeout.
func Lock4jPoll(c goredis.UniversalClient, interval time.Duration) *Subject {
	return &Subject{
		Name: "Lock4j-style poll", Backend: Redis, Kind: KindPeer, Waits: true,
		Note: fmt.Sprintf("SET NX PX, fixed %v retry", interval),
		newLocker: shared(LockerFunc(func(ctx context.Context, key string) (Unlock, error) {
			t := time.NewTimer(interval)
			defer t.Stop()
			for {
				u, err := setNX(ctx, c, key)
				if !errors.Is(err, errBusy) {
					return u, err
				}
				t.Reset(interval)
				select {
				case <-t.C:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
		})),
	}
}

// BSMRedislock is github.com/bsm/redislock with a linear backoff.
func BSMRedislock(c goredis.UniversalClient, backoff time.Duration) *Subject {
	locker := redislock.New(c)
	opts := &redislock.Options{RetryStrategy: redislock.LinearBackoff(backoff)}
	return &Subject{
		Name: "bsm/redislock", Backend: Redis, Kind: KindPeer, Waits: true,
		Note: fmt.Sprintf("SET NX PX (Lua), LinearBackoff(%v)", backoff),
		newLocker: shared(LockerFunc(func(ctx context.Context, key string) (Unlock, error) {
			l, err := locker.Obtain(ctx, key, leaseTTL, opts)
			if err != nil {
				return nil, err
			}
			return l.Release, nil
		})),
	}
}

// Redsync is github.com/go-redsync/redsync with one node and its default
// retry (32 tries, 50–250ms random delay).
func Redsync(c goredis.UniversalClient) *Subject {
	return &Subject{
		Name: "redsync (1 node)", Backend: Redis, Kind: KindPeer, Waits: true,
		Note:      "SET NX PX, retry 50–250ms random",
		newLocker: shared(redsyncLocker(redsync.New(redsyncgoredis.NewPool(c)))),
	}
}

// redsyncLocker locks with rs's Mutex, with the lease every subject asks
// for and redsync's default retry.
func redsyncLocker(rs *redsync.Redsync) Locker {
	return LockerFunc(func(ctx context.Context, key string) (Unlock, error) {
		m := rs.NewMutex(key, redsync.WithExpiry(leaseTTL))
		if err := m.LockContext(ctx); err != nil {
			return nil, err
		}
		return func(ctx context.Context) error {
			ok, err := m.UnlockContext(ctx)
			if err == nil && !ok {
				err = fmt.Errorf("redsync unlock %q: not held", key)
			}
			return err
		}, nil
	})
}
