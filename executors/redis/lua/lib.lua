-- lib.lua: the functions the scripts share. A script says "-- {{lib}}"
-- where they go, after its own KEYS and ARGV locals (scripts.go).
--
-- The lock key holds one of (docs/redis.md, "Values of the lock key"):
--   <owner>\0<token><flags>              a lock4go lock
--   lock4go:claim:<member>\0<token>q     a release granted the key to member,
--                                        with member's token (direct grant)
--   lock4go:shares:<kind>\0<token><flags> read locks or permits hold it
--   lock4go:floor\0<token>               free, but its tokens ran ahead of
--                                        the clock: the next is above token
--   anything else                        another program's lock (Lock4j)
-- where token is the key's last fencing token and flags are letters:
--   q  the wait queue may have members: a release must look at it
--   a  the token is ahead of the server clock: a release keeps a floor
--   l  (a grant) it lives grace ms past its claim window: once within grace
--      of its end it has lapsed, and the next waiter takes it over (lapsed)

-- grace is how long a grant outlives its claim window, in ms: the quiet
-- poll of the executor's waiters (quietPoll in acquire.go), so that a
-- waiter asks while a grant its grantee did not confirm in time still
-- names the grantee, and keeps the grantee's place (take_over).
local grace = 1000

-- clock returns the server clock in microseconds.
local function clock()
  local t = redis.call('time')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- fmt writes a whole number without an exponent.
local function fmt(n)
  return string.format('%.0f', n)
end

-- parse splits a value lock4go wrote into its base, token and flags; it
-- returns nil for anything else (nil, another type, another program's value).
local function parse(v)
  if type(v) ~= 'string' then
    return nil
  end
  local base, token, flags = string.match(v, '^(.*)%z(%d+)(%a*)$')
  if not base then
    return nil
  end
  return base, tonumber(token), flags
end

-- next_token returns the token of an acquisition at server time now of a key
-- whose last token is floor (nil when the key was free): max(now, floor+1),
-- and the flag 'a' when that is ahead of the clock.
local function next_token(now, floor)
  if floor and floor >= now then
    return floor + 1, 'a'
  end
  return now, ''
end

-- free frees key, whose last token is token: it deletes it or, if the token
-- is at or ahead of the clock now (nil: known to be behind it), leaves a
-- floor that lasts until the clock has passed it, so that the next token is
-- above it.
local function free(key, token, now)
  if now and token and token >= now then
    redis.call('set', key, 'lock4go:floor\0' .. fmt(token), 'PX', math.floor((token - now) / 1000) + 2)
  else
    redis.call('del', key)
  end
end

-- wake tells the executor id that it was handed key: with suffix (the
-- grant's token and flags) the lock, without it read locks or permits. The
-- channel is wakes .. id, where wakes, a local of every script, is the
-- prefix of the executor's wake channels: absent or '' for the classic
-- channel 'lock4go:wake:<id>' (PUBLISH: a single node, Sentinel), or
-- '{<tag>}lock4go:wake:' in the key's slot on Redis Cluster (SPUBLISH: the
-- wake stays on the key's shard). A server that refuses SPUBLISH (before
-- Redis 7) gets a PUBLISH on the classic channel instead.
local function wake(id, key, suffix)
  if suffix then
    key = key .. '\0' .. suffix
  else
    key = '\0' .. key
  end
  if wakes and wakes ~= '' then
    local r = redis.pcall('spublish', wakes .. id, key)
    if type(r) ~= 'table' or not r.err then
      return
    end
  end
  redis.call('publish', 'lock4go:wake:' .. id, key)
end

-- live drops the shares that have expired by now (µs) and returns how many
-- are left.
local function live(shares, now)
  redis.call('zremrangebyscore', shares, '-inf', math.floor(now / 1000))
  return redis.call('zcard', shares)
end

-- stretch makes key and shares last at least ms more.
local function stretch(key, shares, ms)
  for _, k in ipairs({key, shares}) do
    if redis.call('pttl', k) < tonumber(ms) then
      redis.call('pexpire', k, ms)
    end
  end
end

-- Scores of the wait queue: a registration's is the server clock in µs.
-- A grantee whose grant lapsed (take_over) is queued again at its grant's
-- token less stalled, below -2e16: serve passes it over, since it is
-- stopped or gone, and keeps it for its next attempt, which moves it up by
-- 2e16 (resume in acquire.lua): still below every registration, so it has
-- the next turn. One passed over for longer than a queue lives (30 s) is
-- dropped: gone.
local stalled = 4e16

-- is_stalled reports whether a queue score is a stalled grantee's.
local function is_stalled(score)
  return tonumber(score) < -2e16
end

-- first returns the first member of queue that is not a stalled grantee's.
local function first(queue)
  return redis.call('zrangebyscore', queue, -2e16, '+inf', 'LIMIT', 0, 1)[1]
end

-- serve_heads pops and serves the heads of queue for serve, setting aside
-- in passed the stalled grantees it pops.
local function serve_heads(key, queue, shares, claim, token, now, shared, passed)
  local served, kind0 = false, nil
  while true do
    local popped = redis.call('zpopmin', queue)
    local head = popped[1]
    if not head then
      return served
    end
    local id, kind = head, ''
    local bar = string.find(head, '|', 1, true)
    if bar then
      id, kind = string.sub(head, 1, bar - 1), string.sub(head, bar + 1)
    end
    local out = 0
    if shared or kind ~= '' then
      now = now or clock()
      out = live(shares, now)
    end
    if is_stalled(popped[2]) then
      passed[#passed + 1] = popped
    elseif kind == '' then
      if out > 0 then
        redis.call('zadd', queue, popped[2], head)
        return served
      end
      local grant = fmt(token + 1) .. 'q'
      if now and token + 1 > now then
        grant = grant .. 'a'
      end
      grant = grant .. 'l'
      redis.call('set', key, 'lock4go:claim:' .. head .. '\0' .. grant, 'PX', claim + grace)
      wake(id, key, grant)
      return true
    elseif (kind0 and kind ~= kind0) or (kind ~= 'r' and out >= tonumber(string.sub(kind, 2))) then
      redis.call('zadd', queue, popped[2], head)
      return served
    else
      kind0, shared = kind, true
      redis.call('zadd', shares, math.floor(now / 1000) + claim, kind .. '|lock4go:claim:' .. head)
      redis.call('set', key, 'lock4go:shares:' .. kind .. '\0' .. fmt(token), 'KEEPTTL')
      stretch(key, shares, claim)
      wake(id, key, nil)
      served = true
    end
  end
end

-- serve hands key to the head of its wait queue: key holds no lock (it was
-- freed by the caller, who overwrites or frees it when serve returns false,
-- or it holds the shares marker: then shared is true), token is its last
-- token, claim the claim window in ms, now the server clock in µs (nil:
-- read when needed; a caller passes nil only when token is not ahead of
-- the clock). A writer (a member without "|") at the head gets the key as
-- its grant once no read lock or permit is left: its claim with its own
-- token (token + 1) for a claim window (and grace more: see lapsed), and a
-- wake carrying that token and the flags, which it confirms (acquire.lua);
-- the readers ("<member>|r") at the head, or permit waiters
-- ("<member>|p<n>") while fewer than n are out, get claims among the shares
-- ("<kind>|lock4go:claim:<member>"). It stops at the first waiter that does
-- not fit (putting it back), so a waiting writer keeps later readers out.
-- Stalled grantees are passed over and kept in their place. It returns
-- whether it served anyone.
local function serve(key, queue, shares, claim, token, now, shared)
  local passed = {}
  local served = serve_heads(key, queue, shares, claim, token, now, shared, passed)
  for _, p in ipairs(passed) do
    now = now or clock()
    if now - (tonumber(p[2]) + stalled) < 30e6 then
      redis.call('zadd', queue, p[2], p[1])
    end
  end
  return served
end

-- release frees key if it holds owner's lock and returns 1, or returns 0: it
-- hands the key to the head of the queue when the lock's flags say the queue
-- may have members, and keeps a floor when its token is ahead of the clock.
local function release(key, queue, shares, owner, claim, cur)
  if cur == nil then
    cur = redis.pcall('get', key)
  end
  local base, token, flags = parse(cur)
  if base ~= owner then
    return 0
  end
  if flags == '' then
    redis.call('del', key)
    return 1
  end
  local now = nil
  if string.find(flags, 'a', 1, true) then
    now = clock()
  end
  if string.find(flags, 'q', 1, true) and serve(key, queue, shares, claim, token, now, false) then
    return 1
  end
  free(key, token, now)
  return 1
end

-- lapsed returns the grantee of the grant that key holds (base and flags
-- parsed from its value) when the grant outlived its claim window without
-- a confirmation: within grace of its end. It returns nil for anything
-- else, grants of earlier builds (no flag 'l', which lapse by their TTL)
-- included.
local function lapsed(key, base, flags)
  if not base or string.sub(base, 1, 14) ~= 'lock4go:claim:' or not string.find(flags, 'l', 1, true) then
    return nil
  end
  if redis.call('pttl', key) > grace then
    return nil
  end
  return string.sub(base, 15)
end

-- take_over hands on the key of a lapsed grant to grantee, whose token it
-- was: the next waiter gets it as a release would give it (or it is
-- freed), and the grantee, stopped or gone, is queued again as stalled:
-- passed over until its next attempt, which gives it the next turn (see
-- stalled). queueTTL is the queue's life in ms.
local function take_over(key, queue, shares, claim, queueTTL, grantee, token, now)
  if not serve(key, queue, shares, claim, token, now, false) then
    free(key, token, now)
  end
  redis.call('zadd', queue, token - stalled, grantee)
  redis.call('pexpire', queue, queueTTL)
end
