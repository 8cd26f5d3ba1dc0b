package redis

import (
	"context"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/internal/kit"
	core "github.com/lock4go/lock4go/internal/queued"
)

// voidLater schedules the void of l, an attempt with a lease of ttl whose
// outcome is unknown, on the executor's core ([core.Core.VoidLater]):
// the void script sets the owner's void marker (so that the next waiter
// takes the key over should the command land later) and frees the key if
// it holds the owner. quiet marks the void of an attempt whose last try
// could not connect: it most likely never reached Redis, so its failures
// are logged at debug level.
func (e *Executor) voidLater(l *lease, ttl time.Duration, quiet bool) {
	e.core.VoidLater(l, ttl, core.Quiet(quiet))
}

// void runs the void script of every item in one pipeline (per Cluster
// node), sent with EVAL: voids are rare, and this spares the NOSCRIPT
// fallback. It returns one error per item.
func (e *Executor) void(ctx context.Context, items []core.Void[*lease]) []error {
	cmds := make([]*goredis.Cmd, len(items))
	_, perr := e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, it := range items {
			cmds[i] = it.Lease.voidCmd(ctx, p, kit.Millis(it.TTL))
		}
		return nil
	})
	errs := make([]error, len(items))
	for i := range items {
		_, errs[i] = pipelinedInt(cmds[i], perr)
	}
	return errs
}
