package redis

import (
	"context"
	"errors"

	goredis "github.com/redis/go-redis/v9"
)

// runScript runs s by its digest (EVALSHA) and, whenever the server says it
// does not know the script (a restart, a failover to a replica that never
// loaded it, SCRIPT FLUSH, or Valkey evicting scripts), again in full
// (EVAL), which loads it for the next call.
func runScript(ctx context.Context, c goredis.Scripter, s *goredis.Script, keys []string, args ...any) *goredis.Cmd {
	cmd := s.EvalSha(ctx, c, keys, args...)
	if isNoScript(cmd.Err()) {
		return s.Eval(ctx, c, keys, args...)
	}
	return cmd
}

// isNoScript reports whether err says the server does not know a script.
// Only the error code counts: servers word the message differently (Valkey
// 8 changed it), and go-redis may hand over its own [goredis.ErrNoScript].
func isNoScript(err error) bool {
	return err != nil && (errors.Is(err, goredis.ErrNoScript) || goredis.HasErrorPrefix(err, "NOSCRIPT"))
}
