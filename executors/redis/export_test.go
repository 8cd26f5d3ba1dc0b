package redis

import (
	"context"
	"time"

	"github.com/lock4go/lock4go/internal/queued"
)

// Internals exposed to the external tests.
var (
	ReservedKey = reservedKey
	VoidKey     = voidKey
	QueueKey    = queueKey
	SharesKey   = sharesKey
	LockNames   = lockNames
	ParseValue  = parseValue
	RefusedDial = refusedDial
	IsNoScript  = isNoScript
	KeySlot     = keySlot
	SlotTag     = slotTag
	Evicting    = evicting
	VoidTTL     = queued.VoidTTL
)

// ReleaseArgs returns the keys and arguments of the release call of a lock
// on key taken by owner with token, as go-redis writes them (a token of 0:
// a lease known by its owner only), and a function that builds and frees
// that call, as every release does.
func ReleaseArgs(key, owner string, token int64) ([]string, func()) {
	l := &lease{key: key, owner: owner, token: token}
	build := func() *call {
		c := newCall(releaseScript, &l.key, lockNameCount)
		c.add(&l.owner)
		c.addValue(l)
		return c
	}
	c := build()
	defer c.free()
	var args []string
	for _, a := range c.args[3:] {
		switch a := a.(type) {
		case *string:
			args = append(args, *a)
		case *bytesArg:
			args = append(args, a.String())
		}
	}
	return args, func() { build().free() }
}

// Void runs, once and in the caller's goroutine, the void of
// an acquisition of key by owner with a lease of ttl, as after a lost reply.
// It reports whether the void reached Redis.
func Void(e *Executor, key, owner string, ttl time.Duration) bool {
	return voidOnce(e, newLease(e, key, owner), ttl)
}

// voidOnce runs the void of l, once, in the caller's goroutine.
func voidOnce(e *Executor, l *lease, ttl time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), e.opts.CleanupTimeout)
	defer cancel()
	return e.void(ctx, []queued.Void[*lease]{{Lease: l, TTL: queued.VoidTTL(ttl)}})[0] == nil
}

// VoidLater schedules the void of an acquisition of key by
// owner with a lease of ttl, as Acquire does after a lost reply.
func VoidLater(e *Executor, key, owner string, ttl time.Duration) {
	e.core.VoidLater(newLease(e, key, owner), ttl, false)
}

// Run calls fn as the executor calls Redis: in the caller's goroutine when
// ctx allows it, else handed off, abandoned if ctx ends first.
func Run(e *Executor, ctx context.Context, fn func(context.Context) error) (err error, abandoned bool) {
	r := e.run(ctx, func(ctx context.Context) result { return result{err: fn(ctx)} })
	return r.err, r.abandoned
}

// MaxIdleWorkers is how many workers an executor keeps parked.
const MaxIdleWorkers = maxIdleWorkers

// IdleWorkers returns how many workers e has parked.
func IdleWorkers(e *Executor) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.idle)
}

// WakeChannel returns the channel releases wake e's waiters on.
func WakeChannel(e *Executor) string { return e.wakeChannel }

// Member returns e's name in wait queues.
func Member(e *Executor) string { return e.member }

// VoidGrant runs, once, the void of an attempt by owner to confirm the
// direct grant of key whose value is grant, as after a lost reply. It
// reports whether the void reached Redis.
func VoidGrant(e *Executor, key, owner, grant string, ttl time.Duration) bool {
	l := newLease(e, key, owner)
	l.grant = grant
	return voidOnce(e, l, ttl)
}

// ShardWakeChannel returns the sharded wake channel of e's waiters of key
// (on a Cluster client).
func ShardWakeChannel(e *Executor, key string) string { return shardChannelPrefix(key) + e.member }

// PollEveryRetry makes every retry of e's waiters ask the server, as the
// redlock executor has its masters do.
func PollEveryRetry(e *Executor) { e.opts.pollEveryRetry = true }
