-- renew.lua: extends a lock.
local key = KEYS[1]
local owner, ttl, value = ARGV[1], ARGV[2], ARGV[3]
-- key: the lock. owner: the lease's owner; ttl: the new lease in ms; value:
-- the value the lease's acquisition wrote.
-- Returns 1 when key held owner's lock (its TTL is now ttl), 0 otherwise.

local cur = redis.pcall('get', key)
if cur == value then
  return redis.call('pexpire', key, ttl)
end
local wakes = nil -- this script wakes nobody (see wake in lib.lua)
-- {{lib}}

if parse(cur) == owner then
  return redis.call('pexpire', key, ttl)
end
return 0
