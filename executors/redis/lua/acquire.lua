-- acquire.lua: one attempt to take a lock.
local key, shares, queue, voids = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner, ttl, member, queueTTL = ARGV[1], ARGV[2], ARGV[3] or '', ARGV[4]
local bits, claim, wakes, grant, granted = tonumber(ARGV[5]) or 0, ARGV[6], ARGV[7], ARGV[8], ARGV[9]
local inQueue, followers, strict = bits % 2 == 1, bits % 4 >= 2, bits >= 4
-- key: the lock; shares: its read locks or permits; queue: its wait queue
-- (a sorted set of executors by arrival, in server µs); voids: the prefix
-- of its owners' void markers (the marker of owner o is voids .. o). An
-- attempt that neither waits nor is strict passes key and shares only, and
-- owner and ttl only.
-- owner: this acquisition's owner; ttl: the lease in ms; member: the
-- waiting executor ("" for an attempt that does not wait); queueTTL: the
-- queue's life in ms; bits: the sum of 1 when the member may stand in the
-- queue (inQueue), 2 when other callers of the process wait behind this one
-- (followers) and 4 for Options.StrictFIFO (strict), in one argument rather
-- than three (every argument costs each call); claim: the claim window in
-- ms; wakes: the prefix of the wake channels ('' for the classic ones: see
-- wake in lib.lua); grant: the value of the grant a wake announced to this
-- executor ("lock4go:claim:<member>\0<token><flags>"), and granted the
-- "<token><flags>" of the lock it becomes: the grant's, without the
-- grant's own flag 'l' (both absent when no wake announced one).
--
-- Returns the token; {token, 1} when taken and queued again for the
-- followers; nil when busy and not waiting; -3 when busy and queued; -2
-- when the key holds this owner but the owner was voided; -4 when the key
-- holds permits.

-- The fast paths, before the shared functions are defined (defining them
-- costs every call). The confirmation of a direct grant: the key holds the
-- grant the wake announced; it becomes this owner's lock, with the grant's
-- token and flags, for the lease.
if grant and redis.pcall('get', key) == grant then
  redis.call('set', key, owner .. '\0' .. granted, 'PX', ttl)
  return tonumber(string.match(granted, '^%d+'))
end
-- The server clock in microseconds, written as the values carry it: the
-- seconds and six digits of microseconds (no string.format: formatting
-- and converting the clock cost the script more than reading it).
local t = redis.call('time')
local us = t[2]
if #us < 6 then
  us = string.rep('0', 6 - #us) .. us
end
local stamp = t[1] .. us
local now = tonumber(stamp)
-- An attempt on a free key by a caller that does not stand in the queue.
if not inQueue and (not strict or redis.call('exists', queue) == 0) then
  if redis.call('set', key, owner .. '\0' .. stamp, 'NX', 'PX', ttl) then
    if not followers or strict or redis.call('exists', queue) == 0 then
      return now
    end
    -- Others wait: queue again at the tail, for this process's followers.
    redis.call('zadd', queue, 'NX', stamp, member)
    redis.call('pexpire', queue, queueTTL)
    redis.call('set', key, owner .. '\0' .. stamp .. 'q', 'KEEPTTL')
    return {now, 1}
  end
  -- A registration: another's lock or grant, already flagged, holds the
  -- key. Queue member (it keeps its place if queued) and say so. A grant
  -- within a second (grace in lib.lua) of its end has lapsed: the slow
  -- path below takes it over.
  if member ~= '' then
    local cur = redis.pcall('get', key)
    if type(cur) == 'string' and string.find(cur, '%z%d+ql?$') and string.sub(cur, 1, 15) ~= 'lock4go:shares:'
        and string.sub(cur, 1, #owner + 1) ~= owner .. '\0' and string.sub(cur, 1, 15 + #member) ~= 'lock4go:claim:' .. member .. '\0'
        and (string.byte(cur, -1) ~= 108 or redis.call('pttl', key) > 1000) then
      redis.call('zadd', queue, 'NX', stamp, member)
      redis.call('pexpire', queue, queueTTL)
      return -3
    end
  end
end
-- {{lib}}

-- requeue takes this member out of the queue if it may stand there (not
-- when popped: a release popped it to hand it the key), and queues it again
-- at the tail for its followers when others wait; it reports whether it
-- queued it.
local function requeue(now, popped)
  if inQueue and not popped then
    redis.call('zrem', queue, member)
  end
  if followers and redis.call('exists', queue) == 1 then
    redis.call('zadd', queue, 'NX', fmt(now), member)
    redis.call('pexpire', queue, queueTTL)
    return true
  end
  return false
end

-- taken returns token, or {token, 1} when the member was queued again.
local function taken(token, joined)
  if joined then
    return {token, 1}
  end
  return token
end

-- take sets key to this owner's lock above floor (nil for none), keeping
-- the flag q of the value it replaces.
local function take(now, floor, flags)
  local token, ahead = next_token(now, floor)
  local joined = requeue(now, false)
  if joined or string.find(flags, 'q', 1, true) then
    ahead = ahead .. 'q'
  end
  redis.call('set', key, owner .. '\0' .. fmt(token) .. ahead, 'PX', ttl)
  return taken(token, joined)
end

-- resume queues member at the tail, or leaves it where it stands: in its
-- place, or, if it stood there stalled (a grantee whose grant lapsed:
-- stalled in lib.lua), with the next turn.
local function resume(now)
  local score = redis.call('zscore', queue, member)
  if not score then
    redis.call('zadd', queue, fmt(now), member)
  elseif is_stalled(score) then
    redis.call('zadd', queue, tonumber(score) + 2e16, member)
  end
end

-- wait queues member behind the holder whose value is cur (flagged so that
-- its release looks at the queue), or returns nil for an attempt that
-- does not wait.
local function wait(now, cur, base, flags)
  if member == '' then
    return false
  end
  resume(now)
  redis.call('pexpire', queue, queueTTL)
  if base and not string.find(flags, 'q', 1, true) then
    redis.call('set', key, cur .. 'q', 'KEEPTTL')
  end
  return -3
end

local cur = redis.pcall('get', key)
local base, token, flags = parse(cur)
local grantee = queue and base ~= 'lock4go:claim:' .. member and lapsed(key, base, flags)
if grantee then
  -- Another executor's grant lapsed: the next waiter gets the key, and the
  -- grantee keeps its place (take_over). Then this attempt goes on with
  -- what the key holds now (its own grant, if it was the next).
  take_over(key, queue, shares, claim, queueTTL, grantee, token, now)
  cur = redis.pcall('get', key)
  base, token, flags = parse(cur)
end
if not cur then
  -- Free. Strict: the head of the queue goes first.
  local head = strict and first(queue)
  if head and head ~= member then
    serve(key, queue, shares, claim, now - 1, now, false)
    return wait(now, nil, nil, '')
  end
  return take(now, nil, 'q')
end
if base == owner then
  -- A retry of this acquisition whose first reply was lost, unless it was
  -- voided meanwhile (an owner reused after an error).
  if voids and redis.call('exists', voids .. owner) == 1 then
    return -2
  end
  return token
end
if base == 'lock4go:floor' then
  return take(now, token, flags)
end
if member ~= '' and base == 'lock4go:claim:' .. member then
  -- A grant to this executor whose wake it did not hear of (or whose value
  -- it did not know): confirm it, with its token.
  local joined = requeue(now, true)
  redis.call('set', key, owner .. '\0' .. fmt(token) .. (string.gsub(flags, 'l', '')), 'PX', ttl)
  return taken(token, joined)
end
if base and string.sub(base, 1, 15) == 'lock4go:shares:' then
  if live(shares, now) > 0 then
    if string.sub(base, 16, 16) == 'p' then
      return -4
    end
    return wait(now, cur, nil, '')
  end
  return take(now, token, 'q')
end
if base and inQueue and string.sub(base, 1, 8) ~= 'lock4go:' and redis.call('exists', voids .. base) == 1 then
  -- The holder is an acquisition voided after a lost reply, whose command
  -- landed after its void: nobody holds this lease.
  return take(now, token, flags)
end
return wait(now, cur, base, flags)
