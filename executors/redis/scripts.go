package redis

import goredis "github.com/redis/go-redis/v9"

// The Lua scripts. Each touches only KEYS of one Cluster slot (the lock key
// and, for acquire, its counter: see derive). go-redis runs them with
// EVALSHA and falls back to EVAL when the server does not know the digest.

// acquireScript sets KEYS[1] to the owner ARGV[1] for ARGV[2] ms if nobody
// holds it, increments the fencing counter KEYS[2] (seeding a missing counter
// from the server clock in microseconds), refreshes the counter's TTL to
// ARGV[3] ms and returns the token. When the key already holds this very
// owner, the command is a retry of this acquisition whose first reply was
// lost (go-redis retries on network errors): it returns the current token, or
// -1 if the counter is gone. Otherwise it returns nil: held by someone else.
var acquireScript = goredis.NewScript(`
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local token = redis.call('incr', KEYS[2])
  if token == 1 then
    local t = redis.call('time')
    local seed = t[1] .. string.format('%06d', tonumber(t[2]))
    redis.call('set', KEYS[2], seed)
    token = tonumber(seed)
  end
  redis.call('pexpire', KEYS[2], ARGV[3])
  return token
end
if redis.call('get', KEYS[1]) == ARGV[1] then
  local token = redis.call('get', KEYS[2])
  if token then
    return tonumber(token)
  end
  return -1
end
return false
`)

// releaseScript deletes KEYS[1] if it holds the owner ARGV[1], announces the
// release on channel ARGV[2] and returns 1; it returns 0 otherwise. It is
// also the compensation of an acquisition whose reply was lost.
var releaseScript = goredis.NewScript(`
if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('del', KEYS[1])
  redis.call('publish', ARGV[2], 'released')
  return 1
end
return 0
`)

// renewScript sets the TTL of KEYS[1] to ARGV[2] ms if it holds the owner
// ARGV[1] and returns 1; it returns 0 otherwise.
var renewScript = goredis.NewScript(`
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
`)
