package redis

import (
	"context"
	"sync/atomic"

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
	case *goredis.Ring:
		return c.Options().ContextTimeoutEnabled
	}
	return false
}

// result is the outcome of one script call.
type result struct {
	val       int64
	err       error
	abandoned bool // ctx ended first; err is ctx's error
}

// direct reports whether a call with ctx may run in the caller's goroutine:
// the client bounds it by ctx's deadline, or ctx never ends.
func (e *Executor) direct(ctx context.Context) bool {
	return e.ctxBound || ctx.Done() == nil
}

// run calls fn and returns its result, bounded by ctx. When [Executor.direct]
// holds, or the executor is closed, fn runs in the caller's goroutine.
// Otherwise fn runs in a tracked goroutine; if ctx ends first, run returns
// ctx's error at once and late (when not nil) receives fn's result once it
// arrives, so the caller can undo what the abandoned call did. Callers on hot
// paths test direct themselves, to spare the closures.
func (e *Executor) run(ctx context.Context, fn func(context.Context) result, late func(result)) result {
	if e.direct(ctx) {
		return fn(ctx)
	}
	// 0: pending; 1: delivered to the caller; 2: abandoned by the caller.
	var state atomic.Int32
	ch := make(chan result, 1)
	started := e.spawn(func() {
		r := fn(ctx)
		ch <- r
		if !state.CompareAndSwap(0, 1) && late != nil {
			late(r)
		}
	})
	if !started {
		return fn(ctx)
	}
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		if state.CompareAndSwap(0, 2) {
			return result{err: ctx.Err(), abandoned: true}
		}
		return <-ch
	}
}

// spawn runs f in a goroutine that Close waits for. It reports false, and
// does not run f, once the executor is closed.
func (e *Executor) spawn(f func()) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		f()
	}()
	return true
}
