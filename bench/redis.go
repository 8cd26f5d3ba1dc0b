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
	return func(ctx context.Context) error {
		n, err := releaseScript.Run(ctx, c, []string{key}, own).Int()
		if err == nil && n != 1 {
			err = fmt.Errorf("release of %q: not held", key)
		}
		return err
	}, nil
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
