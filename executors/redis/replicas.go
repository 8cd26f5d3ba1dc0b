package redis

import (
	"context"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
)

// runAcquire runs an acquire script s like runScript and, with
// [Options.Replicas], sends WAIT behind it in one pipeline on the same
// connection (WAIT counts the replicas that acknowledged the connection's
// writes so far). It returns the script's reply and how many replicas
// acknowledged (-1 without Replicas).
func (e *Executor) runAcquire(ctx context.Context, s *goredis.Script, keys []string, args ...any) (*goredis.Cmd, int64) {
	if e.opts.Replicas == 0 {
		return runScript(ctx, e.client, s, keys, args...), -1
	}
	cmd, acked := e.acquireWaiting(ctx, s, keys, args, false)
	if isNoScript(cmd.Err()) {
		cmd, acked = e.acquireWaiting(ctx, s, keys, args, true)
	}
	return cmd, acked
}

// acquireWaiting sends s (by digest, or in full with eval) and WAIT in one
// pipeline.
func (e *Executor) acquireWaiting(ctx context.Context, s *goredis.Script, keys []string, args []any, eval bool) (*goredis.Cmd, int64) {
	var cmd *goredis.Cmd
	var wait *goredis.Cmd
	_, perr := e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		if eval {
			cmd = s.Eval(ctx, p, keys, args...)
		} else {
			cmd = s.EvalSha(ctx, p, keys, args...)
		}
		wait = p.Do(ctx, "wait", e.opts.Replicas, ms(e.opts.ReplicaTimeout))
		return nil
	})
	if cmd.Err() == nil && perr != nil && !isNil(perr) {
		cmd.SetErr(perr)
	}
	acked, err := wait.Int64()
	if err != nil {
		acked = 0 // unknown: fewer than asked, unless the script failed anyway
	}
	return cmd, acked
}

// checkReplicas turns a taken lease l whose write fewer than
// [Options.Replicas] replicas acknowledged into an error, releasing it.
func (e *Executor) checkReplicas(ctx context.Context, l *lease, acked int64) error {
	if acked < 0 || acked >= int64(e.opts.Replicas) {
		return nil
	}
	if err := l.Release(context.WithoutCancel(ctx)); err != nil {
		e.log.Debug("redis: releasing an acquisition that too few replicas acknowledged failed; it ends with its TTL", "key", l.key(), "err", err)
	}
	return fmt.Errorf("redis: acquire %q: acknowledged by %d of %d replicas within %v: %w",
		l.key(), acked, e.opts.Replicas, e.opts.ReplicaTimeout, executor.ErrBackend)
}
