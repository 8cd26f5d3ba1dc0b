package bench

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	redsyncgoredis "github.com/go-redsync/redsync/v4/redis/goredis/v9"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/redis"
)

// peerLock is a lock of a peer library on one key: take makes one attempt.
type peerLock struct {
	take    func(ctx context.Context) error
	release func(ctx context.Context) error
}

// TestMigrate_interop backs docs/migrating.md: during a rolling migration,
// a process on bsm/redislock or redsync (one node) and one on lock4go's
// Redis executor exclude each other on the same key, in both directions,
// and each takes the key after the other's release.
func TestMigrate_interop(t *testing.T) {
	env, _ := catalog(t)
	rc := env.RedisClient()
	e, err := redis.New(rc, redis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tpl, err := lock4go.New(lock4go.Config{}, e)
	if err != nil {
		t.Fatal(err)
	}
	locker := redislock.New(rc)
	rs := redsync.New(redsyncgoredis.NewPool(rc))
	for name, newPeer := range map[string]func(key string) peerLock{
		"redislock": func(key string) peerLock {
			var l *redislock.Lock
			return peerLock{
				take: func(ctx context.Context) (err error) {
					l, err = locker.Obtain(ctx, key, 10*time.Second, nil)
					return err
				},
				release: func(ctx context.Context) error { return l.Release(ctx) },
			}
		},
		"redsync": func(key string) peerLock {
			m := rs.NewMutex(key, redsync.WithTries(1), redsync.WithExpiry(10*time.Second))
			return peerLock{
				take: m.LockContext,
				release: func(ctx context.Context) error {
					_, err := m.UnlockContext(ctx)
					return err
				},
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			key := "lockbench-migrate:" + name
			interop(t, tpl, newPeer(key), key)
		})
	}
}

func interop(t *testing.T, tpl *lock4go.Template, peer peerLock, key string) {
	ctx := t.Context()
	l, err := tpl.Lock(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := peer.take(ctx); err == nil {
		t.Fatal("the peer took a key lock4go holds")
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := peer.take(ctx); err != nil {
		t.Fatalf("the peer after lock4go's release: %v", err)
	}
	if _, err := tpl.TryLock(ctx, key); !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("lock4go while the peer holds the key = %v, want ErrNotAcquired", err)
	}
	if err := peer.release(ctx); err != nil {
		t.Fatal(err)
	}
	// The peer's release wakes nobody: lock4go finds the key free when it
	// tries (here at once).
	l, err = tpl.TryLock(ctx, key)
	if err != nil {
		t.Fatalf("lock4go after the peer's release: %v", err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
}
