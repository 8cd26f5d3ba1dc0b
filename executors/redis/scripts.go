package redis

import goredis "github.com/redis/go-redis/v9"

// The Lua scripts. Each touches only KEYS of one Cluster slot (the lock key
// and, for acquire and void, names derived from it: see derive). go-redis
// runs them with EVALSHA and falls back to EVAL when the server does not
// know the digest; the voids are pipelined with EVAL. A lock key of
// another type (Redisson's hash lock) makes GET fail with WRONGTYPE; the
// scripts read it with redis.pcall, so it counts as held by another owner
// instead of failing the call.

// Codes the acquire script returns instead of a token.
const (
	// tokenMissing: a retried acquisition found its own owner in the key,
	// but no fencing counter.
	tokenMissing = -1
	// ownerVoided: the owner's acquisitions were voided by a void;
	// nothing was written.
	ownerVoided = -2
)

// acquireScript sets KEYS[1] to the owner ARGV[1] for ARGV[2] ms if nobody
// holds it, increments the fencing counter KEYS[3] (seeding a missing counter
// from the server clock in microseconds), refreshes the counter's TTL to
// ARGV[3] ms and returns the token.
//
// KEYS[4], given for keys with a hash tag, is the counter's legacy name (see
// legacyCounterKey), which processes of earlier versions still increment.
// While it holds a counter (a decimal integer below 2^53; anything else, such
// as the owner of a lock that a key builder once built at that name, is
// ignored and left alone), the token is also above it, and it is raised to
// the token (INCRBY keeps its TTL, so it expires CounterTTL after the last
// acquisition by an earlier version): tokens keep increasing through an
// upgrade, and while old and new processes take the same key.
//
// It first checks the void marker KEYS[2] of this owner: once a
// void has run for the owner (see voidScript), the acquisition is
// refused with ownerVoided and writes nothing, whenever its command lands (a
// go-redis retry, a delayed packet, a command left in the buffer of a dead
// connection). When the key already holds this very owner, the command is a
// retry of this acquisition whose first reply was lost (go-redis retries on
// network errors): it returns the current token, or tokenMissing if the
// counter is gone. Otherwise it returns nil: held by someone else.
var acquireScript = goredis.NewScript(`
if redis.call('exists', KEYS[2]) == 1 then
  return -2
end
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local token = redis.call('incr', KEYS[3])
  if token == 1 then
    local t = redis.call('time')
    local seed = t[1] .. string.format('%06d', tonumber(t[2]))
    redis.call('set', KEYS[3], seed)
    token = tonumber(seed)
  end
  if KEYS[4] then
    local old = redis.pcall('get', KEYS[4])
    if type(old) == 'string' and #old <= 16 and string.find(old, '^[1-9]%d*$') and tonumber(old) < 9007199254740992 then
      old = tonumber(old)
      if old >= token then
        token = old + 1
        redis.call('set', KEYS[3], string.format('%.0f', token))
      end
      redis.call('incrby', KEYS[4], string.format('%.0f', token - old))
    end
  end
  redis.call('pexpire', KEYS[3], ARGV[3])
  return token
end
if redis.pcall('get', KEYS[1]) == ARGV[1] then
  local token = redis.call('get', KEYS[3])
  if token then
    return tonumber(token)
  end
  return -1
end
return false
`)

// compareAndDelete is the body of releaseScript and voidScript: it deletes
// KEYS[1] if it holds the owner ARGV[1], announces the release on channel
// ARGV[2] and returns 1; it returns 0 otherwise.
const compareAndDelete = `
if redis.pcall('get', KEYS[1]) == ARGV[1] then
  redis.call('del', KEYS[1])
  redis.call('publish', ARGV[2], 'released')
  return 1
end
return 0
`

// releaseScript deletes KEYS[1] if it holds the owner ARGV[1], announces the
// release on channel ARGV[2] and returns 1; it returns 0 otherwise.
var releaseScript = goredis.NewScript(compareAndDelete)

// voidScript is the void of an acquisition whose outcome is
// unknown. It sets the void marker KEYS[2] of the owner ARGV[1] for ARGV[3]
// ms, so that the acquisition can no longer take KEYS[1] should its command
// land later, then deletes KEYS[1] if it holds the owner, announcing the
// release on channel ARGV[2] (compareAndDelete). It returns 1 when it
// deleted the key, 0 otherwise. Running it again changes nothing but the
// marker's TTL.
var voidScript = goredis.NewScript(`
redis.call('set', KEYS[2], '1', 'PX', ARGV[3])` + compareAndDelete)

// renewScript sets the TTL of KEYS[1] to ARGV[2] ms if it holds the owner
// ARGV[1] and returns 1; it returns 0 otherwise.
var renewScript = goredis.NewScript(`
if redis.pcall('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
`)
