package redis

import (
	"context"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
)

// RenewBatch renews every item in one pipeline (per Cluster node) of renew
// scripts and returns one error per item, in order: nil, an error wrapping
// [executor.ErrLockNotHeld] when the key no longer holds the lease's owner,
// or one wrapping [executor.ErrBackend]. Leases of other executors are
// renewed one by one through their own Renew.
func (e *Executor) RenewBatch(ctx context.Context, items []executor.RenewItem) []error {
	errs := make([]error, len(items))
	own := make([]*lease, 0, len(items))
	idx := make([]int, 0, len(items))
	for i, it := range items {
		if l, ok := it.Lease.(*lease); ok && l.e == e {
			own = append(own, l)
			idx = append(idx, i)
			continue
		}
		errs[i] = it.Lease.Renew(ctx, it.TTL)
	}
	if len(own) == 0 {
		return errs
	}
	cmds := make([]*goredis.Cmd, len(own))
	r := e.run(ctx, func(ctx context.Context) result {
		e.renewPipeline(ctx, own, idx, items, cmds)
		return result{}
	})
	for j, l := range own {
		i := idx[j]
		if r.abandoned {
			errs[i] = fmt.Errorf("redis: renew %q: %w: %w", l.key(), executor.ErrBackend, r.err)
			continue
		}
		v, err := cmds[j].Int64()
		errs[i] = l.check("renew", result{val: v, err: err})
	}
	return errs
}

// renewPipeline sends one EVALSHA per lease in a pipeline and, if the
// server did not know the script, the refused ones again with EVAL.
func (e *Executor) renewPipeline(ctx context.Context, own []*lease, idx []int, items []executor.RenewItem, cmds []*goredis.Cmd) {
	_, _ = e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for j, l := range own {
			cmds[j] = renewScript.EvalSha(ctx, p, l.keys[:1], l.ownerArg, e.msArg(items[idx[j]].TTL))
		}
		return nil
	})
	var retry []int
	for j, c := range cmds {
		if isNoScript(c.Err()) {
			retry = append(retry, j)
		}
	}
	if len(retry) == 0 {
		return
	}
	_, _ = e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for _, j := range retry {
			l := own[j]
			cmds[j] = renewScript.Eval(ctx, p, l.keys[:1], l.ownerArg, e.msArg(items[idx[j]].TTL))
		}
		return nil
	})
}

// isNoScript reports whether err says the server does not know a script.
func isNoScript(err error) bool {
	return err != nil && goredis.HasErrorPrefix(err, "NOSCRIPT")
}
