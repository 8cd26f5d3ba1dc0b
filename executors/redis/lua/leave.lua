-- leave.lua: takes an executor out of a key's wait queue.
local key, shares, queue = KEYS[1], KEYS[2], KEYS[3]
local id, claim, wakes = ARGV[1], ARGV[2], ARGV[3]
-- key: the lock; queue: its wait queue; shares: its read locks or permits.
-- id: the executor's member; claim: the claim window in ms; wakes: the
-- prefix of the wake channels (see wake in lib.lua).
--
-- Removes every entry of the executor (waiting as a writer, a reader or for
-- a permit) from the queue and drops the claims a release gave it, in key
-- or among the shares; if it dropped one, it hands the key on: a waiter
-- that gives up never holds up the queue. Returns 0.
-- {{lib}}

local mine = id .. '|'
for _, m in ipairs(redis.call('zrange', queue, 0, -1)) do
  if m == id or string.sub(m, 1, #mine) == mine then
    redis.call('zrem', queue, m)
  end
end
local base, token = parse(redis.pcall('get', key))
if not base then
  return 0
end
local now = clock()
if base == 'lock4go:claim:' .. id then
  if not serve(key, queue, shares, claim, token, now, false) then
    free(key, token, now)
  end
  return 0
end
if string.sub(base, 1, 15) ~= 'lock4go:shares:' then
  return 0
end
local dropped, tag = false, '|lock4go:claim:' .. mine
for _, m in ipairs(redis.call('zrange', shares, 0, -1)) do
  local bar = string.find(m, '|', 1, true)
  if bar and string.sub(m, bar, bar + #tag - 1) == tag then
    redis.call('zrem', shares, m)
    dropped = true
  end
end
if dropped and not serve(key, queue, shares, claim, token, now, true) and live(shares, now) == 0 then
  free(key, token, now)
end
return 0
