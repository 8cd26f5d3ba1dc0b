-- void.lua: voids an acquisition whose reply was lost.
local key, shares, queue, voids = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner, claim, markerTTL, wakes, grant = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
-- key: the lock; queue: its wait queue; shares: its read locks or permits;
-- voids: the prefix of its owners' void markers. owner: the acquisition's
-- owner; claim: the claim window in ms; markerTTL: the void marker's life
-- in ms; wakes: the prefix of the wake channels (see wake in lib.lua);
-- grant: for the confirmation of a direct grant, the grant's value
-- (absent otherwise).
--
-- Sets owner's void marker, then frees key if it holds owner's lock (as
-- release.lua), or the grant the acquisition was to confirm: the next
-- waiter gets it. Should the acquisition's command land later and take the
-- free key, the next waiter that retries finds the marker and takes the key
-- over (acquire.lua). Returns 1 when it freed the key, 0 otherwise; running
-- it again changes nothing but the marker's TTL.
-- {{lib}}

redis.call('set', voids .. owner, '1', 'PX', markerTTL)
local cur = redis.pcall('get', key)
if grant and cur == grant then
  owner = string.match(grant, '^(.*)%z')
end
return release(key, queue, shares, owner, claim, cur)
