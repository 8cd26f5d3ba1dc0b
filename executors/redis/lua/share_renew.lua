-- share_renew.lua: extends a read lock or permit.
local key, shares = KEYS[1], KEYS[2]
local me, ttl = ARGV[1], ARGV[2]
-- key: the lock (holding the shares marker); shares: its read locks or
-- permits. me: the share ("<kind>|<owner>"); ttl: the new lease in ms.
-- Returns 1 when the share was held and not expired (it now expires in
-- ttl), 0 otherwise.
local wakes = nil -- this script wakes nobody (see wake in lib.lua)
-- {{lib}}

local now = math.floor(clock() / 1000)
local s = redis.call('zscore', shares, me)
if not s or tonumber(s) < now then
  return 0
end
redis.call('zadd', shares, 'XX', now + ttl, me)
stretch(key, shares, ttl)
return 1
