-- renew.lua: extends a lock.
local key = KEYS[1]
local owner, ttl = ARGV[1], ARGV[2]
-- key: the lock. owner: the lease's owner; ttl: the new lease in ms.
-- Returns 1 when key held owner's lock (its TTL is now ttl), 0 otherwise.
-- {{lib}}

if parse(redis.pcall('get', key)) == owner then
  return redis.call('pexpire', key, ttl)
end
return 0
