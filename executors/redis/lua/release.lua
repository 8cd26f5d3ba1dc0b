-- release.lua: frees a lock for the next holder.
local key, queue, shares = KEYS[1], KEYS[2], KEYS[3]
local owner, claim = ARGV[1], ARGV[2]
-- key: the lock; queue: its wait queue; shares: its read locks or permits.
-- owner: the lease's owner; claim: the claim window in ms.
-- Returns 1 when key held owner's lock (now freed, or handed to the head
-- of the queue), 0 otherwise.
-- {{lib}}

return release(key, queue, shares, owner, claim)
