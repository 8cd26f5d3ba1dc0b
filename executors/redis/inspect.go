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

// Inspect implements [executor.Inspector] with one pipeline: the owner and
// token (GET key: lock4go keeps the holder's token in the key's value; a
// key taken without lock4go, as by Lock4j, has its whole value as the owner
// and token 0), the remaining TTL (PTTL), the read locks or permits (the shares'
// sorted set) and the number of executors (processes, not goroutines) in
// the key's wait queue (ZCARD), which Holder.Waiters reports. A key that a
// release handed to the head of its queue, and that the head has yet to
// take, has the owner "lock4go:claim:<member>". The values are read
// together but not atomically. Read locks and permits are listed in
// Holder.Holders, soonest to expire first, with the semaphore's n; their
// tokens are not kept on the server, so their Token is 0. It returns an
// error wrapping [executor.ErrLockNotHeld] when nobody holds key.
func (e *Executor) Inspect(ctx context.Context, key string) (executor.Holder, error) {
	if e.core.Closed() {
		return executor.Holder{}, e.core.ClosedErr("inspect", key)
	}
	var (
		owner   *goredis.StringCmd
		pttl    *goredis.DurationCmd
		waiters *goredis.IntCmd
		shares  *goredis.ZSliceCmd
		now     *goredis.TimeCmd
	)
	r := e.run(ctx, func(ctx context.Context) result {
		_, err := e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
			owner = p.Get(ctx, key)
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
	base, token, ours := parseValue(o)
	if isNil(err) || pttl.Val() == -2*time.Nanosecond || (ours && (base == floorMarker || strings.HasPrefix(base, sharesMarker))) {
		if h, ok := sharesHolder(shares.Val(), now.Val()); ok {
			h.Waiters = int(waiters.Val())
			return h, nil
		}
		return executor.Holder{}, fmt.Errorf("redis: inspect %q: %w", key, executor.ErrLockNotHeld)
	}
	h := executor.Holder{Owner: o}
	if ours {
		h.Owner, h.Token = base, token
	}
	if d := pttl.Val(); d > 0 {
		h.TTL = d
	}
	return executor.NewHolder(executor.KindLock, 0, []executor.Holder{h}, int(waiters.Val())), nil
}

// sharesHolder describes the live read locks or permits among shares (by
// the server's time now), soonest to expire first, as ZRANGE returns them:
// each owner and TTL, the kind and a semaphore's n; claims that a release
// gave to waiters count as held, as in the scripts. It reports false when
// there are none.
func sharesHolder(shares []goredis.Z, now time.Time) (executor.Holder, bool) {
	nowMs := float64(now.UnixMilli())
	kind, permits := executor.KindRead, 0
	var hs []executor.Holder
	for _, z := range shares {
		if z.Score < nowMs {
			continue
		}
		m, _ := z.Member.(string)
		k, owner, _ := strings.Cut(m, "|")
		if n, ok := strings.CutPrefix(k, "p"); ok {
			kind, permits = executor.KindPermits, atoi(n)
		}
		hs = append(hs, executor.Holder{Owner: owner, TTL: time.Duration(z.Score-nowMs) * time.Millisecond})
	}
	return executor.NewHolder(kind, permits, hs, 0), len(hs) > 0
}

// atoi returns s as a number, 0 when it is not one.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
