package shedlock

import (
	"context"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
)

// redisLease is a job held in ShedLock's Redis layout. Its fields do not
// change after Acquire: it is safe for concurrent use.
type redisLease struct {
	r     *Redis
	key   string
	value string
	token int64
	start time.Time
}

var (
	_ executor.Lease            = (*redisLease)(nil)
	_ executor.DeferredReleaser = (*redisLease)(nil)
)

// Token returns the Redis server's time at the grant, in microseconds.
func (l *redisLease) Token() int64 { return l.token }

// Start returns a time before the acquisition was sent.
func (l *redisLease) Start() time.Time { return l.start }

// AfterLost implements [executor.Lease]: Redis never reports a loss.
func (l *redisLease) AfterLost(func()) func() bool { return executor.NeverLost }

// Renew sets the key's TTL to ttl if it still holds this value, as
// ShedLock's extend does (safeUpdate).
func (l *redisLease) Renew(ctx context.Context, ttl time.Duration) error {
	return l.run("renew", extendScript.Run(ctx, l.r.client, []string{l.key}, l.value, leases.Millis(ttl)).Int64)
}

// ReleaseAfter implements [executor.DeferredReleaser] as ShedLock's
// unlock does with lockAtLeastFor left: the key's TTL becomes d.
func (l *redisLease) ReleaseAfter(ctx context.Context, d time.Duration) error {
	return l.run("release after", extendScript.Run(ctx, l.r.client, []string{l.key}, l.value, leases.Millis(d)).Int64)
}

// Release deletes the key if it still holds this value (ShedLock's
// delLuaScript).
func (l *redisLease) Release(ctx context.Context) error {
	return l.run("release", releaseScript.Run(ctx, l.r.client, []string{l.key}, l.value).Int64)
}

// run turns a script's answer into the lease's error: 1 is done, 0 not
// held.
func (l *redisLease) run(op string, answer func() (int64, error)) error {
	v, err := answer()
	switch {
	case err != nil:
		return fmt.Errorf("shedlock: %s %q: %w: %w", op, l.key, executor.ErrBackend, err)
	case v != 1:
		return fmt.Errorf("shedlock: %s %q: %w", op, l.key, executor.ErrLockNotHeld)
	}
	return nil
}

// abandon deletes whatever an acquisition whose answer was lost may have
// written.
func (l *redisLease) abandon(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
	defer cancel()
	_ = releaseScript.Run(cctx, l.r.client, []string{l.key}, l.value).Err()
}
