package redis

import (
	"context"
	"errors"

	goredis "github.com/redis/go-redis/v9"
)

// honoursContext reports whether client bounds its network I/O by context
// deadlines. go-redis does so only with ContextTimeoutEnabled; otherwise a
// call waits for ReadTimeout (and its retries) whatever the context says.
func honoursContext(client goredis.UniversalClient) bool {
	switch c := client.(type) {
	case *goredis.Client:
		return c.Options().ContextTimeoutEnabled
	case *goredis.ClusterClient:
		return c.Options().ContextTimeoutEnabled
	}
	return false
}

// result is the outcome of one script call.
type result struct {
	val       int64
	err       error
	abandoned bool  // ctx ended first; err is ctx's error
	joined    bool  // acquire: taken, and the executor queued again for followers
	acked     int64 // acquire: replicas that acknowledged it, -1 if not asked
}

// direct reports whether a call with ctx may run in the caller's goroutine:
// ctx never ends, or it has a deadline and the client bounds its I/O by it.
// go-redis honours deadlines only, never a cancellation: a direct call whose
// ctx is cancelled before its deadline returns when Redis answers, or at the
// deadline if Redis stalls. A context that can be cancelled but has no
// deadline always takes a worker of [Executor.run].
func (e *Executor) direct(ctx context.Context) bool {
	if e.ctxBound {
		if _, ok := ctx.Deadline(); ok {
			return true
		}
	}
	// Asked last: Done makes a cancelable context allocate its channel.
	return ctx.Done() == nil
}

// run calls fn and returns its result, bounded by ctx. When [Executor.direct]
// holds, or the executor is closed, fn runs in the caller's goroutine.
// Otherwise fn runs in one of the executor's workers, and if ctx ends first
// run returns at once, with ctx's error and abandoned set; fn's result is
// then dropped, so a caller that may have to undo fn's effects must do so
// itself. Callers on hot paths test direct themselves, to spare the
// closures.
func (e *Executor) run(ctx context.Context, fn func(context.Context) result) result {
	if e.direct(ctx) {
		return fn(ctx)
	}
	ch := make(chan result, 1)
	if !e.handOff(job{ctx: ctx, fn: fn, out: ch}) {
		return fn(ctx)
	}
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		select {
		case r := <-ch: // both were ready: prefer the real outcome
			return r
		default:
			return result{err: ctx.Err(), abandoned: true}
		}
	}
}

// runScript runs s by its digest (EVALSHA) and, whenever the server says it
// does not know the script (a restart, a failover to a replica that never
// loaded it, SCRIPT FLUSH, or Valkey evicting scripts), again in full
// (EVAL), which loads it for the next call.
func runScript(ctx context.Context, c goredis.Scripter, s *luaScript, keys []string, args ...any) *goredis.Cmd {
	cmd := s.gs.EvalSha(ctx, c, keys, args...)
	if isNoScript(cmd.Err()) {
		return s.gs.Eval(ctx, c, keys, args...)
	}
	return cmd
}

// isNoScript reports whether err says the server does not know a script.
// Only the error code counts: servers word the message differently (Valkey
// 8 changed it), and go-redis may hand over its own [goredis.ErrNoScript].
func isNoScript(err error) bool {
	return err != nil && (errors.Is(err, goredis.ErrNoScript) || goredis.HasErrorPrefix(err, "NOSCRIPT"))
}
