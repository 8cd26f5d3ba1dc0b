package redis

import goredis "github.com/redis/go-redis/v9"

// The Lua scripts. Each touches only KEYS of one Cluster slot (the lock key
// and names derived from it: see derive). go-redis runs them with EVALSHA
// and falls back to EVAL when the server does not know the digest; the
// voids are pipelined with EVAL. A lock key of another type (Redisson's
// hash lock) makes GET fail with WRONGTYPE; the scripts read it with
// redis.pcall, so it counts as held by another owner instead of failing the
// call. docs/redis.md describes the protocol, the wait queue included.

// Codes the acquire script returns instead of a token.
const (
	// tokenMissing: a retried acquisition found its own owner in the key,
	// but no fencing counter.
	tokenMissing = -1
	// ownerVoided: the owner's acquisitions were voided by a void;
	// nothing was written.
	ownerVoided = -2
	// queued: the key is busy and the waiting executor stands in its wait
	// queue.
	queued = -3
	// kindMismatch: the key is in use as another kind (a lock, a read-write
	// lock, or a semaphore of another size).
	kindMismatch = -4
)

// acquireScript sets KEYS[1] to the owner ARGV[1] for ARGV[2] ms if nobody
// holds it, increments the fencing counter KEYS[4] (seeding a missing counter
// from the server clock in microseconds), refreshes the counter's TTL to
// ARGV[3] ms and returns the token.
//
// ARGV[4] is the member of a waiting executor ("" for an attempt that does
// not wait). When KEYS[1] holds that member's claim (a release handed the
// key to the head of its queue, see handOff), the attempt takes the key as
// if it were free. When the key is busy otherwise, the member joins the wait
// queue KEYS[2] (a sorted set by arrival, in server microseconds; a member
// already there keeps its place), whose TTL is set to ARGV[5] ms, and the
// script returns queued. ARGV[6] is "1" when the member may still stand in
// the queue: a waiter that takes the free key then leaves it. ARGV[7] is
// "1" when other callers of the process wait behind this one: an attempt
// that takes the key while other executors are queued then queues the
// member again, at the tail, for them, and returns {token, 1}.
//
// ARGV[8] is "1" for strict FIFO ([Options.StrictFIFO]): an attempt that
// finds the key free while another member heads the queue does not take it;
// it hands the key to that member as a claim for ARGV[9] ms (as a release
// does) and queues, or returns nil if it does not wait.
//
// KEYS[5], given for keys with a hash tag, is the counter's legacy name (see
// legacyCounterKey), which processes of earlier versions still increment.
// While it holds a counter (a decimal integer below 2^53; anything else, such
// as the owner of a lock that a key builder once built at that name, is
// ignored and left alone), the token is also above it, and it is raised to
// the token (INCRBY keeps its TTL, so it expires CounterTTL after the last
// acquisition by an earlier version): tokens keep increasing through an
// upgrade, and while old and new processes take the same key.
//
// It first checks the void marker KEYS[3] of this owner: once a
// void has run for the owner (see voidScript), the acquisition is
// refused with ownerVoided and writes nothing, whenever its command lands (a
// go-redis retry, a delayed packet, a command left in the buffer of a dead
// connection). When the key already holds this very owner, the command is a
// retry of this acquisition whose first reply was lost (go-redis retries on
// network errors): it returns the current token, or tokenMissing if the
// counter is gone. Otherwise it returns nil (held by someone else, and the
// attempt does not wait) or queued.
var acquireScript = goredis.NewScript(serveFn + `
local function join()
  local t = redis.call('time')
  redis.call('zadd', KEYS[2], 'NX', t[1] .. string.format('%06d', tonumber(t[2])), ARGV[4])
  redis.call('pexpire', KEYS[2], ARGV[5])
end
if redis.call('exists', KEYS[4]) == 1 then
  return -2
end
local shared = false
if redis.call('exists', KEYS[3]) == 1 then
  local t = redis.call('time')
  redis.call('zremrangebyscore', KEYS[3], '-inf', t[1] * 1000 + math.floor(t[2] / 1000))
  local first = redis.call('zrange', KEYS[3], 0, 0)[1]
  if first and string.sub(first, 1, 1) == 'p' then
    return -4
  end
  shared = first ~= nil
end
if not shared and ARGV[8] == '1' and redis.call('exists', KEYS[1]) == 0 then
  local head = redis.call('zrange', KEYS[2], 0, 0)[1]
  if head == ARGV[4] then
    redis.call('zpopmin', KEYS[2])
  elseif head then
    serve(KEYS[1], KEYS[2], KEYS[3], ARGV[9])
    if ARGV[4] == '' then
      return false
    end
    join()
    return -3
  end
end
if not shared and redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if ARGV[6] == '1' then
    redis.call('zrem', KEYS[2], ARGV[4])
  end
else
  local cur = redis.pcall('get', KEYS[1])
  if cur == ARGV[1] then
    local token = redis.call('get', KEYS[5])
    if token then
      return tonumber(token)
    end
    return -1
  end
  if ARGV[4] == '' then
    return false
  end
  if cur ~= '` + claimPrefix + `' .. ARGV[4] then
    join()
    return -3
  end
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
local joined = false
if ARGV[7] == '1' and redis.call('exists', KEYS[2]) == 1 then
  join()
  joined = true
end
local token = redis.call('incr', KEYS[5])
if token == 1 then
  local t = redis.call('time')
  local seed = t[1] .. string.format('%06d', tonumber(t[2]))
  redis.call('set', KEYS[5], seed)
  token = tonumber(seed)
end
if KEYS[6] then
  local old = redis.pcall('get', KEYS[6])
  if type(old) == 'string' and #old <= 16 and string.find(old, '^[1-9]%d*$') and tonumber(old) < 9007199254740992 then
    old = tonumber(old)
    if old >= token then
      token = old + 1
      redis.call('set', KEYS[5], string.format('%.0f', token))
    end
    redis.call('incrby', KEYS[6], string.format('%.0f', token - old))
  end
end
redis.call('pexpire', KEYS[5], ARGV[3])
if joined then
  return {token, 1}
end
return token
`)

// serveFn defines serve(key, queue, shares, claim), the Lua function that
// hands a key that nobody holds exclusively to the head of its wait queue:
// a writer (a member without "|") when no read lock or permit is left in
// shares, by setting key to its claim for claim ms; all the readers
// ("<member>|r") at the head, or permit waiters ("<member>|p<n>") while
// fewer than n permits are out, by adding their claims to shares
// ("<kind>|lock4go:claim:<member>", expiring in claim ms). Each served
// executor is told on its wake channel (the member up to "|"): the key, or
// for shares sharedWake and the key. It stops at
// the first waiter that does not fit, so a waiting writer keeps later
// readers out. It returns whether it served anyone. Expired shares are
// dropped first (their score is their expiry, in server milliseconds).
const serveFn = `
local function serve(key, queue, shares, claim)
  if redis.call('exists', key) == 1 then
    return false
  end
  local served, now = false, nil
  while true do
    local head = redis.call('zrange', queue, 0, 0)[1]
    if not head then
      return served
    end
    local id, kind = head, ''
    local bar = string.find(head, '|', 1, true)
    if bar then
      id, kind = string.sub(head, 1, bar - 1), string.sub(head, bar + 1)
    end
    local out = 0
    if redis.call('exists', shares) == 1 then
      if not now then
        local t = redis.call('time')
        now = t[1] * 1000 + math.floor(t[2] / 1000)
      end
      redis.call('zremrangebyscore', shares, '-inf', now)
      out = redis.call('zcard', shares)
    end
    if kind == '' then
      if out > 0 then
        return served
      end
      redis.call('zpopmin', queue)
      redis.call('set', key, '` + claimPrefix + `' .. head, 'PX', claim)
      redis.call('publish', '` + wakeChannelPrefix + `' .. id, key)
      return true
    end
    if kind ~= 'r' and out >= tonumber(string.sub(kind, 2)) then
      return served
    end
    if not now then
      local t = redis.call('time')
      now = t[1] * 1000 + math.floor(t[2] / 1000)
    end
    redis.call('zpopmin', queue)
    redis.call('zadd', shares, now + claim, kind .. '|` + claimPrefix + `' .. head)
    if redis.call('pttl', shares) < tonumber(claim) then
      redis.call('pexpire', shares, claim)
    end
    redis.call('publish', '` + wakeChannelPrefix + `' .. id, '\0' .. key) -- sharedWake
    served = true
  end
end
`

// compareAndDelete is the body of releaseScript and voidScript (after
// serveFn): if KEYS[1] holds the owner ARGV[1], it deletes it, hands the
// key to the head of the wait queue KEYS[2] (serve, with the shares KEYS[3]
// and ARGV[3] ms of claim) or, with nobody served, publishes on channel
// ARGV[2] (watched by processes of earlier versions), and returns 1; it
// returns 0 otherwise.
const compareAndDelete = `
if redis.pcall('get', KEYS[1]) == ARGV[1] then
  redis.call('del', KEYS[1])
  if not serve(KEYS[1], KEYS[2], KEYS[3], ARGV[3]) then
    redis.call('publish', ARGV[2], 'released')
  end
  return 1
end
return 0
`

// releaseScript frees KEYS[1] for the next holder if it holds the owner
// ARGV[1] and returns 1; it returns 0 otherwise (compareAndDelete).
var releaseScript = goredis.NewScript(serveFn + compareAndDelete)

// voidScript is the void of an acquisition whose outcome is unknown. It
// sets the void marker KEYS[4] of the owner ARGV[1] for ARGV[4] ms, so that
// the acquisition can no longer take KEYS[1] should its command land later,
// then frees KEYS[1] if it holds the owner (compareAndDelete). It returns 1
// when it freed the key, 0 otherwise. Running it again changes nothing but
// the marker's TTL.
var voidScript = goredis.NewScript(serveFn + `
redis.call('set', KEYS[4], '1', 'PX', ARGV[4])` + compareAndDelete)

// leaveScript removes every member of the executor ARGV[1] (waiting as a
// writer, a reader or for a permit) from the wait queue KEYS[2] and drops
// the claims a release gave them, in KEYS[1] or in the shares KEYS[3]; if
// it dropped one, it hands the key on (serve, with ARGV[2] ms of claim): a
// waiter that gives up never holds up the queue.
var leaveScript = goredis.NewScript(serveFn + `
local id = ARGV[1]
local mine = id .. '|'
for _, m in ipairs(redis.call('zrange', KEYS[2], 0, -1)) do
  if m == id or string.sub(m, 1, #mine) == mine then
    redis.call('zrem', KEYS[2], m)
  end
end
local dropped = false
if redis.pcall('get', KEYS[1]) == '` + claimPrefix + `' .. id then
  redis.call('del', KEYS[1])
  dropped = true
end
local claim = '|` + claimPrefix + `' .. mine
for _, m in ipairs(redis.call('zrange', KEYS[3], 0, -1)) do
  local bar = string.find(m, '|', 1, true)
  if bar and string.sub(m, bar, bar + #claim - 1) == claim then
    redis.call('zrem', KEYS[3], m)
    dropped = true
  end
end
if dropped then
  serve(KEYS[1], KEYS[2], KEYS[3], ARGV[2])
end
return 0
`)

// renewScript sets the TTL of KEYS[1] to ARGV[2] ms if it holds the owner
// ARGV[1] and returns 1; it returns 0 otherwise.
var renewScript = goredis.NewScript(`
if redis.pcall('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
`)
