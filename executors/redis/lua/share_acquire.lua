-- share_acquire.lua: one attempt to take a read lock or a permit.
local key, shares, queue, voids = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner, ttl, member, queueTTL = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local kind, n, claim, wakes = ARGV[5], tonumber(ARGV[6]), ARGV[7], ARGV[8]
-- key: the lock, which holds the shares marker while shares are out;
-- queue: its wait queue; shares: a sorted set of "<kind>|<owner>" by expiry
-- in server ms; voids: unused (the share's void marker is checked here).
-- owner: this acquisition's owner; ttl: the lease in ms; member: the
-- waiting executor's entry ("<member>|<kind>", "" for an attempt that does
-- not wait); queueTTL: the queue's life in ms; kind: "r" or "p<n>"; n: the
-- permits (0 for a read lock); claim: the claim window in ms; wakes: the
-- prefix of the wake channels (see wake in lib.lua).
--
-- A read lock is granted while no writer holds key and nobody waits before
-- it; a permit while fewer than n are out and nobody waits before it;
-- either when the executor holds a claim a release gave it. Returns the
-- token; nil when busy and not waiting; -3 when queued; -2 when owner was
-- voided; -1 when owner already holds a share (a retry whose token is not
-- kept: the caller voids it); -4 when key is in use as another kind.
-- {{lib}}

if redis.call('exists', voids .. owner) == 1 then
  return -2
end
local now = clock()
local cur = redis.pcall('get', key)
local base, floor, flags = parse(cur)
local grantee = lapsed(key, base, flags)
if grantee then
  -- A writer's grant lapsed: the next waiter gets the key, and the
  -- grantee keeps its place (take_over in lib.lua); then this attempt goes
  -- on with what the key holds now (its claim among the shares, if it was
  -- next).
  take_over(key, queue, shares, claim, queueTTL, grantee, floor, now)
  cur = redis.pcall('get', key)
  base, floor = parse(cur)
end
local marker = 'lock4go:shares:' .. kind
local out = 0
if base == marker then
  out = live(shares, now)
elseif base and string.sub(base, 1, 15) == 'lock4go:shares:' then
  if live(shares, now) > 0 then
    return -4
  end
elseif cur and base ~= 'lock4go:floor' then
  -- A lock (or its claim) holds key.
  if kind ~= 'r' then
    return -4
  end
  if member == '' then
    return false
  end
  redis.call('zadd', queue, 'NX', fmt(now), member)
  redis.call('pexpire', queue, queueTTL)
  if base and string.sub(base, 1, 8) ~= 'lock4go:' and not string.find(cur, 'q', #base + 2, true) then
    redis.call('set', key, cur .. 'q', 'KEEPTTL')
  end
  return -3
end
local me = kind .. '|' .. owner
if redis.call('zscore', shares, me) then
  return -1
end
local claimed = member ~= '' and redis.call('zrem', shares, kind .. '|lock4go:claim:' .. member) == 1
if not claimed then
  local head = first(queue)
  if (kind ~= 'r' and out >= n) or (head and head ~= member) then
    if member == '' then
      return false
    end
    redis.call('zadd', queue, 'NX', fmt(now), member)
    redis.call('pexpire', queue, queueTTL)
    return -3
  end
end
if member ~= '' then
  redis.call('zrem', queue, member)
end
local token = next_token(now, floor)
redis.call('zadd', shares, math.floor(now / 1000) + ttl, me)
redis.call('set', key, marker .. '\0' .. fmt(token), 'KEEPTTL')
stretch(key, shares, ttl)
if redis.call('exists', queue) == 1 then
  serve(key, queue, shares, claim, token, now, true)
end
return token
