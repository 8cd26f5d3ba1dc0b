package redis

import (
	"context"

	"github.com/lock4go/lock4go/executor"
)

// Read locks and permits ("shares") live in the sorted set sharesKey(key),
// one member "<kind>|<owner>" per holder scored by its expiry in server
// milliseconds, where kind is "r" for a read lock and "p<n>" for a permit
// of a semaphore of n; while any is out, key itself holds the shares marker
// "lock4go:shares:<kind>", so a writer (and Lock4j, and redsync) finds the
// key busy without looking at the shares. The write lock is the lock of
// key itself. Waiters share the key's wait queue, as "<member>|<kind>" (a
// writer is the bare member): a release serves the head (serve in
// lua/lib.lua). docs/redis.md tells the whole protocol.

// acquireShare runs the share acquire script for l and req.
func (l *lease) acquireShare(ctx context.Context, req executor.Request, kind string) result {
	e := l.e
	member := noArg
	if req.Wait {
		member = e.member + "|" + kind
	}
	c := newCall(shareAcquireScript, &l.key, lockNameCount)
	c.add(&l.owner, e.msArg(req.TTL), member, e.queueTTLArg, kind, req.Permits, e.claimArg, &l.wakes)
	cmd, acked := e.runAcquire(ctx, c)
	v, err := cmd.Int64()
	c.free()
	return result{val: v, err: err, acked: acked}
}
