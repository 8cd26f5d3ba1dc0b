-- release.lua: frees a lock for the next holder.
local key, shares, queue = KEYS[1], KEYS[2], KEYS[3]
local owner, claim, value, wakes, member, queueTTL = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
-- key: the lock; shares: its read locks or permits; queue: its wait queue.
-- owner: the lease's owner; claim: the claim window in ms; value: the value
-- the lease's acquisition wrote ("<owner>\0<token>"); wakes: the prefix
-- of the wake channels (absent or '' for the classic ones: see wake in
-- lib.lua); member: this
-- executor's member when callers of its process wait behind the lease
-- (absent otherwise); queueTTL: the queue's life in ms.
-- Returns 1 when key held owner's lock (now freed, or granted to the head
-- of the queue), 2 when it also queued member again for its followers, 0
-- when key did not hold owner's lock.

-- The fast paths, before the shared functions are defined (defining them
-- costs every call). The key holds what the acquisition wrote (no waiter
-- flagged it since): delete it.
local cur = redis.pcall('get', key)
if cur == value then
  redis.call('del', key)
  return 1
end
-- The hand-off: a waiter flagged the lock (and its token is not ahead of
-- the clock). The head of the queue, a writer, gets the direct grant: the
-- key with its token (this lock's plus one) for a claim window, and a wake
-- that carries the token; it confirms with its acquire script.
if cur == value .. 'q' then
  local popped = redis.call('zpopmin', queue)
  local head = popped[1]
  if not head then
    redis.call('del', key)
    return 1
  end
  if not string.find(head, '|', 1, true) and tonumber(popped[2]) > -2e16 then
    -- The grant lives a second (grace in lib.lua) past its claim window,
    -- flagged 'l', so that a waiter that finds it lapsed keeps the
    -- grantee's place (take_over in lib.lua). A stalled grantee at the
    -- head (a score below -2e16) goes back, and serve passes it over.
    local token = tonumber(string.sub(value, #owner + 2)) + 1
    local grant = string.format('%.0f', token) .. 'ql'
    redis.call('set', key, 'lock4go:claim:' .. head .. '\0' .. grant, 'PX', claim + 1000)
    local payload, r = key .. '\0' .. grant, nil
    if wakes and wakes ~= '' then
      r = redis.pcall('spublish', wakes .. head, payload)
    end
    if r == nil or (type(r) == 'table' and r.err) then
      redis.call('publish', 'lock4go:wake:' .. head, payload)
    end
    if member and member ~= head then
      -- Followers wait in this process: queue it again, at the tail (by
      -- the server clock, as every registration). The queue's TTL is
      -- refreshed at one grant in eight (and at every registration): live
      -- waiters keep it far from running out.
      local t = redis.call('time')
      redis.call('zadd', queue, 'NX', t[1] .. string.format('%06d', tonumber(t[2])), member)
      if token % 8 == 0 then
        redis.call('pexpire', queue, queueTTL)
      end
      return 2
    end
    return 1
  end
  redis.call('zadd', queue, popped[2], head)
end
-- {{lib}}

return release(key, queue, shares, owner, claim, cur)
