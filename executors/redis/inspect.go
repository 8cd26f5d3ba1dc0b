package redis

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
)

// Inspect implements [executor.Inspector] with one pipeline: the owner
// (GET key), the token (GET of the key's counter: the token of the latest
// acquisition, the holder's unless the key was taken without lock4go, as by
// Lock4j), the remaining TTL (PTTL) and the number of executors (processes,
// not goroutines) in the key's wait queue (ZCARD). A key that a release
// handed to the head of its queue, and that the head has yet to take, has
// the owner "lock4go:claim:<member>". The values are read together but not
// atomically. Read locks and permits (shares) are counted in
// Holder.Shared, with the owner and TTL of the latest to expire (their
// tokens are not kept: Token is 0). It returns an error wrapping
// [executor.ErrLockNotHeld] when nobody holds key.
func (e *Executor) Inspect(ctx context.Context, key string) (executor.Holder, error) {
	if e.isClosed() {
		return executor.Holder{}, closedErr("inspect", key)
	}
	var (
		owner, token *goredis.StringCmd
		pttl         *goredis.DurationCmd
		waiters      *goredis.IntCmd
		shares       *goredis.ZSliceCmd
		now          *goredis.TimeCmd
	)
	r := e.run(ctx, func(ctx context.Context) result {
		_, err := e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
			owner = p.Get(ctx, key)
			token = p.Get(ctx, counterKey(key))
			pttl = p.PTTL(ctx, key)
			waiters = p.ZCard(ctx, queueKey(key))
			shares = p.ZRangeWithScores(ctx, sharesKey(key), 0, -1)
			now = p.Time(ctx)
			return nil
		})
		return result{err: err}
	})
	if r.err != nil && !isNil(r.err) {
		return executor.Holder{}, fmt.Errorf("redis: inspect %q: %w: %w", key, executor.ErrBackend, r.err)
	}
	o, err := owner.Result()
	if isNil(err) || pttl.Val() == -2*time.Nanosecond {
		if h, ok := sharesHolder(shares.Val(), now.Val()); ok {
			h.Waiters = int(waiters.Val())
			return h, nil
		}
		return executor.Holder{}, fmt.Errorf("redis: inspect %q: %w", key, executor.ErrLockNotHeld)
	}
	h := executor.Holder{Owner: o, Waiters: int(waiters.Val())}
	if t, err := strconv.ParseInt(token.Val(), 10, 64); err == nil {
		h.Token = t
	}
	if d := pttl.Val(); d > 0 {
		h.TTL = d
	}
	return h, nil
}

// sharesHolder describes the live read locks or permits among shares (by
// the server's time now): their count, and the owner, TTL and token of the
// newest; claims that a release gave to waiters count as held, as in the
// scripts. It reports false when there are none.
func sharesHolder(shares []goredis.Z, now time.Time) (executor.Holder, bool) {
	nowMs := float64(now.UnixMilli())
	var h executor.Holder
	var newest float64
	for _, z := range shares {
		if z.Score < nowMs {
			continue
		}
		h.Shared++
		if z.Score >= newest {
			newest = z.Score
			m, _ := z.Member.(string)
			if _, owner, ok := strings.Cut(m, "|"); ok {
				h.Owner = owner
			}
			h.TTL = time.Duration(z.Score-nowMs) * time.Millisecond
		}
	}
	return h, h.Shared > 0
}
