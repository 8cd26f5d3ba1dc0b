-- share_void.lua: voids a read lock or permit acquisition whose reply was
-- lost.
local key, shares, queue, voids = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local me, owner, claim, markerTTL, wakes = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
-- key: the lock; queue: its wait queue; shares: its read locks or permits;
-- voids: the prefix of its owners' void markers. me: the share
-- ("<kind>|<owner>"); owner: the acquisition's owner; claim: the claim
-- window in ms; markerTTL: the void marker's life in ms; wakes: the prefix
-- of the wake channels (see wake in lib.lua).
--
-- Sets owner's void marker, which share_acquire.lua checks first, then
-- removes the share if it is there and serves the queue. Returns 1 when it
-- removed the share.
-- {{lib}}

redis.call('set', voids .. owner, '1', 'PX', markerTTL)
if redis.call('zrem', shares, me) == 0 then
  return 0
end
local now = clock()
local base, token = parse(redis.pcall('get', key))
if base and string.sub(base, 1, 15) == 'lock4go:shares:' then
  if not serve(key, queue, shares, claim, token, now, true) and live(shares, now) == 0 then
    free(key, token, now)
  end
end
return 1
