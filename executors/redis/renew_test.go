package redis_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
)

// handshake reports whether cmd belongs to go-redis's connection set-up.
func handshake(cmd goredis.Cmder) bool {
	switch cmd.Name() {
	case "hello", "client", "auth", "select":
		return true
	}
	return false
}

// countHook counts what a client sends besides connection set-up: single
// commands and pipelines.
type countHook struct {
	cmds, pipelines atomic.Int64
}

func (h *countHook) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h *countHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		if !handshake(cmd) {
			h.cmds.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (h *countHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		if len(cmds) > 0 && !handshake(cmds[0]) {
			h.pipelines.Add(1)
		}
		return next(ctx, cmds)
	}
}

func TestExecutor_RenewBatch(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	client := newClient(t, s.Addr())
	hook := &countHook{}
	client.AddHook(hook)
	e := newExecutor(t, client, redis.Options{})
	other := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	items, gone := renewItems(t, e, other)

	// Warm the script cache up; then a flushed cache makes the batch fall
	// back to EVAL.
	if err := items[0].Lease.Renew(t.Context(), time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, flush := range []bool{false, true} {
		if flush {
			if err := c.ScriptFlush(t.Context()).Err(); err != nil {
				t.Fatal(err)
			}
			// The foreign lease's own Renew would load the script again.
			items = items[:len(items)-1]
		}
		cmds, pipes := hook.cmds.Load(), hook.pipelines.Load()
		checkRenewed(t, e.RenewBatch(t.Context(), items), items, gone, flush)
		wantPipes := int64(1)
		if flush {
			wantPipes = 2 // EVALSHA refused, then EVAL
		}
		if got := hook.pipelines.Load() - pipes; got != wantPipes {
			t.Fatalf("flush %v: %d pipelines, want %d", flush, got, wantPipes)
		}
		if got := hook.cmds.Load() - cmds; got != 0 {
			t.Fatalf("flush %v: %d single commands besides the pipeline", flush, got)
		}
	}
	if errs := e.RenewBatch(t.Context(), nil); len(errs) != 0 {
		t.Fatalf("RenewBatch(nil) = %v", errs)
	}
}

// renewItems returns five leases of e, then gone (a lease of e already
// released), then a lease of other, each to renew for a minute.
func renewItems(t *testing.T, e, other *redis.Executor) (items []executor.RenewItem, gone executor.Lease) {
	t.Helper()
	for range 5 {
		l, err := e.Acquire(t.Context(), req(uniq(t, "batch:"), 10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Release(context.WithoutCancel(t.Context())) })
		items = append(items, executor.RenewItem{Lease: l, TTL: time.Minute})
	}
	gone, err := e.Acquire(t.Context(), req(uniq(t, "batch-gone:"), 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := gone.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	items = append(items, executor.RenewItem{Lease: gone, TTL: time.Minute})
	foreign, err := other.Acquire(t.Context(), req(uniq(t, "batch-foreign:"), 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = foreign.Release(context.WithoutCancel(t.Context())) })
	return append(items, executor.RenewItem{Lease: foreign, TTL: time.Minute}), gone
}

// checkRenewed checks RenewBatch's errs for items: nil, but
// ErrLockNotHeld for gone.
func checkRenewed(t *testing.T, errs []error, items []executor.RenewItem, gone executor.Lease, flush bool) {
	t.Helper()
	if len(errs) != len(items) {
		t.Fatalf("RenewBatch returned %d errors for %d items", len(errs), len(items))
	}
	for i, err := range errs {
		want := error(nil)
		if items[i].Lease == gone {
			want = executor.ErrLockNotHeld
		}
		if (want == nil && err != nil) || (want != nil && !errors.Is(err, want)) {
			t.Fatalf("flush %v: item %d: %v, want %v", flush, i, err, want)
		}
	}
}

func TestExecutor_RenewBatch_extends(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	e := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	key := uniq(t, "ext:")
	l, err := e.Acquire(t.Context(), req(key, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(context.WithoutCancel(t.Context()))
	if errs := e.RenewBatch(t.Context(), []executor.RenewItem{{Lease: l, TTL: time.Hour}}); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if ttl := c.PTTL(t.Context(), key).Val(); ttl < 59*time.Minute {
		t.Fatalf("PTTL after RenewBatch = %v, want about 1h", ttl)
	}
}
