package redis

import (
	"context"
	"fmt"
	"strconv"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
)

// Read locks and permits ("shares") live in the sorted set sharesKey(key),
// one member "<kind>|<owner>" per holder scored by its expiry in server
// milliseconds, where kind is "r" for a read lock and "p<n>" for a permit
// of a semaphore of n. The write lock is the lock of key itself, so a
// writer and Lock4j or redsync see the same key. Waiters share the key's
// wait queue, as "<member>|<kind>" (a writer is the bare member): a release
// serves the head (serveFn). docs/redis.md tells the whole protocol.

// shareAcquireScript takes a read lock or permit. KEYS: the lock key, the
// wait queue, the shares, the owner's void marker, the counter. ARGV: 1 the
// owner, 2 the TTL in ms, 3 the counter's TTL in ms, 4 the queue member of
// a waiting executor ("<member>|<kind>", or "" for an attempt that does not
// wait), 5 the queue's TTL in ms, 6 the kind ("r" or "p<n>"), 7 n (0 for a
// read lock), 8 the claim window in ms.
//
// A read lock is granted while no writer holds the key (nothing in KEYS[1])
// and nobody waits before it; a permit while fewer than n are out and
// nobody waits before it; either when the executor holds a claim a release
// gave it. Otherwise a waiting attempt joins the queue and gets queued, one
// that does not wait gets nil. A key in use as another kind gets
// kindMismatch; an owner already among the shares (a retried command whose
// reply was lost) gets tokenMissing, since its token is not kept: the
// caller voids it. A granted share is added with its expiry, the counter is
// incremented as for a lock, and the next waiters are served.
var shareAcquireScript = goredis.NewScript(serveFn + `
if redis.call('exists', KEYS[4]) == 1 then
  return -2
end
local t = redis.call('time')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('zremrangebyscore', KEYS[3], '-inf', now)
local kind = ARGV[6]
local me = kind .. '|' .. ARGV[1]
if redis.call('zscore', KEYS[3], me) then
  return -1
end
local first = redis.call('zrange', KEYS[3], 0, 0)[1]
if first and string.sub(first, 1, #kind + 1) ~= kind .. '|' then
  return -4
end
local cur = redis.pcall('get', KEYS[1])
if cur and kind ~= 'r' then
  return -4
end
local claimed = ARGV[4] ~= '' and redis.call('zrem', KEYS[3], kind .. '|` + claimPrefix + `' .. ARGV[4]) == 1
if not claimed then
  local free
  if kind == 'r' then
    free = not cur
  else
    free = redis.call('zcard', KEYS[3]) < tonumber(ARGV[7])
  end
  if free then
    local head = redis.call('zrange', KEYS[2], 0, 0)[1]
    free = not head or head == ARGV[4]
  end
  if not free then
    if ARGV[4] == '' then
      return false
    end
    redis.call('zadd', KEYS[2], 'NX', t[1] .. string.format('%06d', tonumber(t[2])), ARGV[4])
    redis.call('pexpire', KEYS[2], ARGV[5])
    return -3
  end
end
if ARGV[4] ~= '' then
  redis.call('zrem', KEYS[2], ARGV[4])
end
redis.call('zadd', KEYS[3], now + ARGV[2], me)
if redis.call('pttl', KEYS[3]) < tonumber(ARGV[2]) then
  redis.call('pexpire', KEYS[3], ARGV[2])
end
local token = redis.call('incr', KEYS[5])
if token == 1 then
  local seed = t[1] .. string.format('%06d', tonumber(t[2]))
  redis.call('set', KEYS[5], seed)
  token = tonumber(seed)
end
redis.call('pexpire', KEYS[5], ARGV[3])
serve(KEYS[1], KEYS[2], KEYS[3], ARGV[8])
return token
`)

// shareReleaseScript removes the share ARGV[1] from KEYS[3] and serves the
// queue (KEYS[1], KEYS[2], ARGV[2] ms of claim). It returns 1 when the share
// was held, 0 when it was gone or had expired.
var shareReleaseScript = goredis.NewScript(serveFn + `
local t = redis.call('time')
local s = redis.call('zscore', KEYS[3], ARGV[1])
if not s then
  return 0
end
redis.call('zrem', KEYS[3], ARGV[1])
serve(KEYS[1], KEYS[2], KEYS[3], ARGV[2])
if tonumber(s) < t[1] * 1000 + math.floor(t[2] / 1000) then
  return 0
end
return 1
`)

// shareRenewScript sets the expiry of the share ARGV[1] in KEYS[1] to
// ARGV[2] ms from now if it is held and not expired, and returns 1; it
// returns 0 otherwise.
var shareRenewScript = goredis.NewScript(`
local t = redis.call('time')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local s = redis.call('zscore', KEYS[1], ARGV[1])
if not s or tonumber(s) < now then
  return 0
end
redis.call('zadd', KEYS[1], 'XX', now + ARGV[2], ARGV[1])
if redis.call('pttl', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('pexpire', KEYS[1], ARGV[2])
end
return 1
`)

// shareVoidScript is the void of a share acquisition whose outcome is
// unknown: it sets the owner's void marker KEYS[4] for ARGV[3] ms, removes
// the share ARGV[1] from KEYS[3] if it is there and then serves the queue
// (ARGV[2] ms of claim). It returns 1 when it removed the share.
var shareVoidScript = goredis.NewScript(serveFn + `
redis.call('set', KEYS[4], '1', 'PX', ARGV[3])
if redis.call('zrem', KEYS[3], ARGV[1]) == 1 then
  serve(KEYS[1], KEYS[2], KEYS[3], ARGV[2])
  return 1
end
return 0
`)

// shareKind returns the kind of a share request: "r" or "p<n>".
func shareKind(req executor.Request) string {
	if req.Permits > 0 {
		return "p" + strconv.Itoa(req.Permits)
	}
	return "r"
}

// acquireShare runs the share acquire script for l and req.
func (l *lease) acquireShare(ctx context.Context, req executor.Request, kind string) result {
	e := l.e
	member := noArg
	if req.Wait {
		member = e.member + "|" + kind
	}
	v, err := shareAcquireScript.Run(ctx, e.client, l.keys[:5], l.ownerArg, e.msArg(req.TTL), e.counterTTLArg,
		member, e.queueTTLArg, kind, req.Permits, e.claimArg).Int64()
	return result{val: v, err: err}
}

// errKind reports a key in use as another kind.
func errKind(req executor.Request) error {
	what := "a read lock"
	if req.Permits > 0 {
		what = fmt.Sprintf("a semaphore of %d permits", req.Permits)
	}
	if req.Permits == 0 && !req.Shared {
		what = "a lock"
	}
	return fmt.Errorf("redis: %q is in use as another kind than %s (a lock, a read-write lock or a semaphore of another size): %w",
		req.Key, what, executor.ErrInvalidConfig)
}
