-- release.lua: frees a lock for the next holder.
local key, shares, queue = KEYS[1], KEYS[2], KEYS[3]
local owner, claim, value = ARGV[1], ARGV[2], ARGV[3]
-- key: the lock; shares: its read locks or permits; queue: its wait queue.
-- owner: the lease's owner; claim: the claim window in ms; value: the value
-- the lease's acquisition wrote.
-- Returns 1 when key held owner's lock (now freed, or handed to the head
-- of the queue), 0 otherwise.

-- The fast path, before the shared functions are defined: the key holds
-- what the acquisition wrote (no waiter flagged it since).
if redis.pcall('get', key) == value then
  redis.call('del', key)
  return 1
end
-- {{lib}}

return release(key, queue, shares, owner, claim)
