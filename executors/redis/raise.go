package redis

import (
	"context"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
)

// raiseScript sets the fencing counter KEYS[1] to ARGV[1] if it holds less
// (or nothing, or a value that is not a counter), with a TTL of ARGV[2] ms,
// and returns the counter's value after the call.
var raiseScript = goredis.NewScript(`
local cur = tonumber(redis.call('get', KEYS[1]) or '0') or 0
local want = tonumber(ARGV[1])
if cur < want then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return want
end
return cur
`)

// RaiseToken raises key's fencing counter to at least atLeast, so that the
// next acquisition of key on this server gets a token above atLeast. A
// counter already at or above it is left alone. It is the write-back of a
// quorum lock over several servers (the redlock executor): the token of a
// quorum acquisition is the largest of its servers' tokens, and raising the
// others to it keeps tokens increasing across quorums that overlap on one
// server. The counter gets [Options.CounterTTL] when raised. It returns an
// error wrapping [executor.ErrInvalidConfig] for a token below 1, and one
// wrapping [executor.ErrBackend] when Redis did not answer.
func (e *Executor) RaiseToken(ctx context.Context, key string, atLeast int64) error {
	if key == "" || reservedKey(key) {
		return fmt.Errorf("redis: raise token %q: %w", key, executor.ErrInvalidKey)
	}
	if atLeast < 1 {
		return fmt.Errorf("redis: raise token %q to %d: %w", key, atLeast, executor.ErrInvalidConfig)
	}
	keys := []string{counterKey(key)}
	r := e.run(ctx, func(ctx context.Context) result {
		v, err := raiseScript.Run(ctx, e.client, keys, atLeast, e.counterTTLArg).Int64()
		return result{val: v, err: err}
	})
	if r.err != nil {
		return fmt.Errorf("redis: raise token %q: %w: %w", key, executor.ErrBackend, r.err)
	}
	return nil
}
