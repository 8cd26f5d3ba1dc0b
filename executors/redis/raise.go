package redis

import (
	"context"
	"fmt"

	"github.com/lock4go/lock4go/executor"
)

// RaiseToken makes the next attempt of key on this server get a token
// above atLeast. It is the write-back of a quorum lock over several servers
// (the redlock executor): the token of a quorum acquisition is the largest
// of its servers' tokens, and raising the others to it keeps tokens
// increasing across quorums that overlap on one server.
//
// A key held through lock4go (a lock, read locks, permits, or a claim a
// release handed on) carries its last token in its value: it is raised to
// atLeast, and the release keeps a floor while atLeast is ahead of the
// server clock. A free key gets such a floor (the key holds
// "lock4go:floor" for as long as atLeast is ahead of the clock); past that,
// tokens come from the clock and exceed atLeast anyway. A key held by
// another program (Lock4j) is left alone. Nothing is written when atLeast
// is already behind the key's token or, for a free key, behind the clock.
//
// It returns an error wrapping [executor.ErrInvalidConfig] for a token
// below 1, and one wrapping [executor.ErrBackend] when Redis did not
// answer.
func (e *Executor) RaiseToken(ctx context.Context, key string, atLeast int64) error {
	if key == "" || reservedKey(key) {
		return fmt.Errorf("redis: raise token %q: %w", key, executor.ErrInvalidKey)
	}
	if atLeast < 1 {
		return fmt.Errorf("redis: raise token %q to %d: %w", key, atLeast, executor.ErrInvalidConfig)
	}
	keys := []string{key}
	r := e.run(ctx, func(ctx context.Context) result {
		v, err := runScript(ctx, e.client, raiseScript, keys, atLeast).Int64()
		return result{val: v, err: err}
	})
	if r.err != nil {
		return fmt.Errorf("redis: raise token %q: %w: %w", key, executor.ErrBackend, r.err)
	}
	return nil
}
