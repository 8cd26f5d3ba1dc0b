-- share_release.lua: gives back a read lock or permit.
local key, shares, queue = KEYS[1], KEYS[2], KEYS[3]
local me, claim, wakes = ARGV[1], ARGV[2], ARGV[3]
-- key: the lock (holding the shares marker); queue: its wait queue; shares:
-- its read locks or permits. me: the share ("<kind>|<owner>"); claim: the
-- claim window in ms; wakes: the prefix of the wake channels (see wake in
-- lib.lua).
--
-- Removes the share and serves the queue; the last share out frees key.
-- Returns 1 when the share was held, 0 when it was gone or had expired.
-- {{lib}}

local now = clock()
local s = redis.call('zscore', shares, me)
if not s then
  return 0
end
redis.call('zrem', shares, me)
local base, token = parse(redis.pcall('get', key))
if base and string.sub(base, 1, 15) == 'lock4go:shares:' then
  if not serve(key, queue, shares, claim, token, now, true) and live(shares, now) == 0 then
    free(key, token, now)
  end
end
if tonumber(s) < math.floor(now / 1000) then
  return 0
end
return 1
