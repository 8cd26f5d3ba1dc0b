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
var acquireScript = goredis.NewScript(`
local function join()
  local t = redis.call('time')
  redis.call('zadd', KEYS[2], 'NX', t[1] .. string.format('%06d', tonumber(t[2])), ARGV[4])
  redis.call('pexpire', KEYS[2], ARGV[5])
end
if redis.call('exists', KEYS[3]) == 1 then
  return -2
end
if ARGV[8] == '1' and redis.call('exists', KEYS[1]) == 0 then
  local head = redis.call('zrange', KEYS[2], 0, 0)[1]
  if head == ARGV[4] then
    redis.call('zpopmin', KEYS[2])
  elseif head then
    redis.call('zpopmin', KEYS[2])
    redis.call('set', KEYS[1], '` + claimPrefix + `' .. head, 'PX', ARGV[9])
    redis.call('publish', '` + wakeChannelPrefix + `' .. head, KEYS[1])
    if ARGV[4] == '' then
      return false
    end
    join()
    return -3
  end
end
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if ARGV[6] == '1' then
    redis.call('zrem', KEYS[2], ARGV[4])
  end
else
  local cur = redis.pcall('get', KEYS[1])
  if cur == ARGV[1] then
    local token = redis.call('get', KEYS[4])
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
local token = redis.call('incr', KEYS[4])
if token == 1 then
  local t = redis.call('time')
  local seed = t[1] .. string.format('%06d', tonumber(t[2]))
  redis.call('set', KEYS[4], seed)
  token = tonumber(seed)
end
if KEYS[5] then
  local old = redis.pcall('get', KEYS[5])
  if type(old) == 'string' and #old <= 16 and string.find(old, '^[1-9]%d*$') and tonumber(old) < 9007199254740992 then
    old = tonumber(old)
    if old >= token then
      token = old + 1
      redis.call('set', KEYS[4], string.format('%.0f', token))
    end
    redis.call('incrby', KEYS[5], string.format('%.0f', token - old))
  end
end
redis.call('pexpire', KEYS[4], ARGV[3])
if joined then
  return {token, 1}
end
return token
`)

// handOff frees KEYS[1] (the lock key) for the next holder: it pops the
// head of the wait queue KEYS[2], sets KEYS[1] to the head's claim for
// ARGV[3] ms and publishes the key on the head's wake channel; with nobody
// queued, it deletes KEYS[1] and publishes on channel ARGV[2] (watched by
// processes of earlier versions).
const handOff = `
local head = redis.call('zpopmin', KEYS[2])
if head[1] then
  redis.call('set', KEYS[1], '` + claimPrefix + `' .. head[1], 'PX', ARGV[3])
  redis.call('publish', '` + wakeChannelPrefix + `' .. head[1], KEYS[1])
else
  redis.call('del', KEYS[1])
  redis.call('publish', ARGV[2], 'released')
end
`

// compareAndDelete is the body of releaseScript and voidScript: if KEYS[1]
// holds the owner ARGV[1], it hands the key off (handOff) and returns 1; it
// returns 0 otherwise.
const compareAndDelete = `
if redis.pcall('get', KEYS[1]) == ARGV[1] then` + handOff + `  return 1
end
return 0
`

// releaseScript frees KEYS[1] for the next holder if it holds the owner
// ARGV[1] and returns 1; it returns 0 otherwise (compareAndDelete).
var releaseScript = goredis.NewScript(compareAndDelete)

// voidScript is the void of an acquisition whose outcome is unknown. It
// sets the void marker KEYS[3] of the owner ARGV[1] for ARGV[4] ms, so that
// the acquisition can no longer take KEYS[1] should its command land later,
// then frees KEYS[1] if it holds the owner (compareAndDelete). It returns 1
// when it freed the key, 0 otherwise. Running it again changes nothing but
// the marker's TTL.
var voidScript = goredis.NewScript(`
redis.call('set', KEYS[3], '1', 'PX', ARGV[4])` + compareAndDelete)

// leaveScript removes the member ARGV[1] from the wait queue KEYS[2] and,
// if KEYS[1] holds the member's claim, hands the key to the next waiter
// (handOff, with ARGV[2] and ARGV[3] as there): a waiter that gives up
// never holds up the queue.
var leaveScript = goredis.NewScript(`
redis.call('zrem', KEYS[2], ARGV[1])
if redis.pcall('get', KEYS[1]) == '` + claimPrefix + `' .. ARGV[1] then` + handOff + `end
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
