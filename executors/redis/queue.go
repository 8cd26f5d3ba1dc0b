package redis

import (
	"context"
)

// Names of the wait queue's values (see docs/redis.md, "Wait queue"):
// a released key that waiters queue for holds claimPrefix and the member of
// the executor at the head of its queue for [Options.ClaimWindow], and the
// release script tells that executor on its wake channel.
const (
	claimPrefix       = "lock4go:claim:"
	wakeChannelPrefix = "lock4go:wake:"
	// sharedWake starts the payload of a wake that hands read locks or
	// permits to the executor; keys never contain NUL.
	sharedWake = "\x00"

	// maxRecentWakes bounds the direct grants kept for attempts yet to
	// confirm them.
	maxRecentWakes = 1024
)

// leave removes the executor from key's queue, best effort, within ctx.
func (e *Executor) leave(ctx context.Context, key string) {
	keys := []string{key, sharesKey(key), queueKey(key)}
	wakes := ""
	if e.sharded {
		wakes = e.wakePrefix(key)
	}
	if err := runScript(ctx, e.client, leaveScript, keys, &e.member, e.claimArg, wakes).Err(); err != nil {
		e.log.Debug("redis: leaving a wait queue failed; the entry is skipped when its turn comes", "key", key, "err", err)
	}
}
