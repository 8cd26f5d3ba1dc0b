package redis

import (
	"context"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/queued"
)

// void runs the void script of every item, for the core's
// [queued.Core.VoidLater]: it sets the owner's void marker (so that the
// next waiter takes the key over should the attempt land later) and frees
// the key if it holds the owner. The scripts go in one pipeline (per
// Cluster node), sent with EVAL: voids are rare, and this spares the
// NOSCRIPT fallback. It returns one error per item.
func (e *Executor) void(ctx context.Context, items []queued.Void[*lease]) []error {
	cmds := make([]*goredis.Cmd, len(items))
	_, perr := e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, it := range items {
			cmds[i] = it.Lease.voidCmd(ctx, p, leases.Millis(it.TTL))
		}
		return nil
	})
	errs := make([]error, len(items))
	for i := range items {
		_, errs[i] = pipelinedInt(cmds[i], perr)
	}
	return errs
}
