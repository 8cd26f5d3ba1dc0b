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
		return result{err: e.renewPipeline(ctx, own, idx, items, cmds)}
	})
	for j, l := range own {
		i := idx[j]
		if r.abandoned {
			errs[i] = fmt.Errorf("redis: renew %q: %w: %w", l.key(), executor.ErrBackend, r.err)
			continue
		}
		v, err := pipelinedInt(cmds[j], r.err)
		errs[i] = l.check("renew", result{val: v, err: err})
	}
	return errs
}

// renewPipeline sends one EVALSHA per lease in a pipeline and, if the
// server did not know the script, the refused ones again with EVAL. It
// returns the error of the last pipeline.
func (e *Executor) renewPipeline(ctx context.Context, own []*lease, idx []int, items []executor.RenewItem, cmds []*goredis.Cmd) error {
	_, perr := e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
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
		return perr
	}
	_, perr = e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for _, j := range retry {
			l := own[j]
			cmds[j] = renewScript.Eval(ctx, p, l.keys[:1], l.ownerArg, e.msArg(items[idx[j]].TTL))
		}
		return nil
	})
	return perr
}

// pipelinedInt returns the integer reply of cmd, a command of a pipeline
// that failed with perr. go-redis may leave the commands of a pipeline
// whose connection could not be set up (refused credentials, say) without
// an error of their own; the pipeline's error is then theirs.
func pipelinedInt(cmd *goredis.Cmd, perr error) (int64, error) {
	v, err := cmd.Int64()
	if err != nil && cmd.Err() == nil && perr != nil {
		err = perr
	}
	return v, err
}

// isNoScript reports whether err says the server does not know a script.
func isNoScript(err error) bool {
	return err != nil && goredis.HasErrorPrefix(err, "NOSCRIPT")
}
