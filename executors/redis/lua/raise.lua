-- raise.lua: raises a key's last token (Redlock's write-back).
local key = KEYS[1]
local atLeast = tonumber(ARGV[1])
-- key: the lock. atLeast: the token the next acquisition must exceed.
--
-- A lock4go value of key (a lock, a claim, shares, a floor) gets atLeast as
-- its token if its own is lower, flagged 'a' when that is ahead of the
-- clock, so that its release keeps a floor; a free key gets a floor while
-- atLeast is ahead of the clock (later tokens come from the clock, above
-- it). Another program's lock is left alone. Returns 1 when the key now
-- carries atLeast, 0 otherwise.
local wakes = nil -- this script wakes nobody (see wake in lib.lua)
-- {{lib}}

local cur = redis.pcall('get', key)
local now = clock()
if not cur then
  if atLeast >= now then
    free(key, atLeast, now)
    return 1
  end
  return 0
end
local base, token, flags = parse(cur)
if not base then
  return 0
end
if token >= atLeast then
  return 1
end
if base == 'lock4go:floor' then
  free(key, atLeast, now)
  return 1
end
if atLeast >= now and not string.find(flags, 'a', 1, true) then
  flags = flags .. 'a'
end
redis.call('set', key, base .. '\0' .. fmt(atLeast) .. flags, 'KEEPTTL')
return 1
