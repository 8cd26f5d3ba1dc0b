package bench

import (
	"context"
	"fmt"

	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidislock"
)

// RueidisLock is github.com/redis/rueidis/rueidislock with KeyMajority 1,
// the setting its README gives for a single Redis instance. It wakes its
// waiters by client-side-caching invalidations (CLIENT TRACKING) instead
// of pub/sub; one Locker (one client) serves every goroutine of a process.
func RueidisLock(addr string) (*Subject, error) {
	l, err := rueidislock.NewLocker(rueidislock.LockerOption{
		ClientOption: rueidis.ClientOption{InitAddress: []string{addr}},
		KeyMajority:  1,
		KeyValidity:  leaseTTL,
	})
	if err != nil {
		return nil, fmt.Errorf("rueidislock: %w", err)
	}
	return &Subject{
		Name: "rueidislock", Backend: Redis, Kind: KindPeer, Waits: true,
		Note:      "SET NX PXAT, woken by client-side-caching invalidations; KeyMajority 1",
		newLocker: shared(rueidisLocker(l)),
		close:     func() error { l.Close(); return nil },
	}, nil
}

// rueidisLocker adapts l. rueidislock ties the lock's life to the context
// it waits with; the lock gets a context of its own, cancelled when the
// caller's ends during the wait (rueidislock then gives up) or at Unlock.
func rueidisLocker(l rueidislock.Locker) Locker {
	return LockerFunc(func(ctx context.Context, key string) (Unlock, error) {
		held, release := context.WithCancel(context.WithoutCancel(ctx))
		stop := context.AfterFunc(ctx, release)
		_, cancel, err := l.WithContext(held, key)
		if err != nil {
			release()
			return nil, err
		}
		if !stop() { // ctx ended as it acquired: the lock is already going
			cancel()
			return nil, context.Cause(ctx)
		}
		return func(context.Context) error {
			cancel() // deletes the key and returns when done
			release()
			return nil
		}, nil
	})
}
