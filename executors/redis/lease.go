package redis

import (
	"context"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
)

// lease is a lock held through an [Executor], or an attempt to take one. It
// is safe for concurrent use.
type lease struct {
	e *Executor
	// key is the lock key; the other names of the scripts' KEYS derive from
	// it (see appendLockName).
	key string
	// owner is the acquisition's owner. The strings of a lease go into a
	// script call as pointers (see newCall).
	owner string
	// shareArg is, for a read lock or permit, its member in the key's
	// shares ("<kind>|<owner>"), boxed; nil for a lock.
	shareArg any
	// grant is, for an attempt that confirms a direct grant, the grant's
	// value, which its void frees too; "" otherwise.
	grant string
	// granted is the grant's token, with grant.
	granted string
	// wakes is the prefix of the wake channels the scripts publish on for
	// this key (see Executor.wakePrefix); "" for the classic ones.
	wakes string
	// followers: callers of the process waited behind the lease when it was
	// taken; its release queues the executor again for them when it grants
	// the key to another.
	followers bool
	// epoch is the wake subscription's epoch when a waiting attempt began
	// (see Executor.outcome).
	epoch uint64
	// token is the fencing token the acquire script returned, 0 until it
	// did (a lease known by its owner only: ForceRelease, a void).
	token int64
	start time.Time   // before the acquire script was sent
	loss  leases.Loss // set by Close: Redis never reports a loss by itself
}

var (
	_ executor.Lease      = (*lease)(nil)
	_ executor.LostCauser = (*lease)(nil)
)

// newLease returns the attempt of owner to take key through e.
func newLease(e *Executor, key, owner string) *lease {
	l := &lease{e: e, key: key, owner: owner, start: time.Now()}
	if e.sharded {
		l.wakes = e.wakePrefix(key)
	}
	return l
}

// taken records the token the acquire script returned.
func (l *lease) taken(token int64) { l.token = token }

// appendValue appends the value a lock's acquisition wrote,
// "<owner>\x00<token>", to dst; the owner alone before the acquire script
// returned a token (a lease known by its owner only: ForceRelease).
func (l *lease) appendValue(dst []byte) []byte {
	dst = append(dst, l.owner...)
	if l.token == 0 {
		return dst
	}
	return strconv.AppendInt(append(dst, 0), l.token, 10)
}

// Token returns the fencing token the acquire script returned.
func (l *lease) Token() int64 { return l.token }

// Start returns a time before the acquire script was sent: the key's TTL
// runs from when the script ran.
func (l *lease) Start() time.Time { return l.start }

// AfterLost implements [executor.Lease]: Redis never reports a lost key by
// itself, so f runs only when [Executor.Close] ends the lease; the
// Template's renewals find the other losses.
func (l *lease) AfterLost(f func()) (stop func() bool) { return l.loss.After(f) }

// LostCause implements [executor.LostCauser]: [executor.ErrClosed] once
// Close ended the lease.
func (l *lease) LostCause() error { return l.loss.Cause() }

// NotifyLost implements [executor.LossNotifier]: AfterLost for a listener,
// without allocating.
func (l *lease) NotifyLost(ln executor.LossListener) (uint64, bool) { return l.loss.Notify(ln) }

// StopNotify implements [executor.LossNotifier].
func (l *lease) StopNotify(id uint64) bool { return l.loss.Forget(id) }

// Renew sets the key's TTL to ttl from now if it still holds this owner.
func (l *lease) Renew(ctx context.Context, ttl time.Duration) error {
	if l.loss.Lost() {
		return l.e.core.LostErr("renew", l)
	}
	var r result
	if l.e.direct(ctx) {
		r = l.renew(ctx, ttl)
	} else {
		r = l.e.run(ctx, func(ctx context.Context) result { return l.renew(ctx, ttl) })
	}
	return l.e.core.Settle(l, l.check("renew", r))
}

// Release frees the key if it still holds this owner: it hands it to the
// executor at the head of the key's wait queue, or deletes it. A ctx that has already ended is replaced by a detached
// one bounded by [Options.CleanupTimeout], so a lock is released even by a
// caller whose request was cancelled.
func (l *lease) Release(ctx context.Context) error {
	if l.loss.Lost() {
		return l.e.core.LostErr("release", l)
	}
	ctx, cancel := l.e.core.ReleaseContext(ctx)
	defer cancel()
	var r result
	if l.e.direct(ctx) {
		r = l.release(ctx)
	} else {
		r = l.e.run(ctx, l.release)
	}
	err := l.check("release", r)
	if err == nil {
		l.e.core.Forget(l)
	}
	return l.e.core.Settle(l, err)
}

// renew runs the renew script.
func (l *lease) renew(ctx context.Context, ttl time.Duration) result {
	var c *call
	if l.shareArg != nil {
		c = newCall(shareRenewScript, &l.key, 2)
		c.add(l.shareArg, l.e.msArg(ttl))
	} else {
		c = newCall(renewScript, &l.key, 1)
		c.add(&l.owner, l.e.msArg(ttl))
		c.addValue(l)
	}
	v, err := c.run(ctx, l.e.client).Int64()
	c.free()
	return result{val: v, err: err}
}

// renewCmd adds the renew script of l to a pipeline, by digest or, when
// eval is set, in full.
func (l *lease) renewCmd(ctx context.Context, p goredis.Pipeliner, ttl time.Duration, eval bool) *goredis.Cmd {
	s, keys, member := renewScript, []string{l.key}, any(&l.owner)
	if l.shareArg != nil {
		s, keys, member = shareRenewScript, lockNames(l.key)[:2], l.shareArg
	}
	value := string(l.appendValue(nil))
	if eval {
		return s.gs.Eval(ctx, p, keys, member, l.e.msArg(ttl), value)
	}
	return s.gs.EvalSha(ctx, p, keys, member, l.e.msArg(ttl), value)
}

// release runs the release script, which also hands the key off.
func (l *lease) release(ctx context.Context) result {
	var c *call
	if l.shareArg != nil {
		c = newCall(shareReleaseScript, &l.key, 3)
		c.add(l.shareArg, l.e.claimArg, &l.wakes)
		v, err := c.run(ctx, l.e.client).Int64()
		c.free()
		return result{val: v, err: err}
	}
	c = newCall(releaseScript, &l.key, 3)
	c.add(&l.owner, l.e.claimArg)
	c.addValue(l)
	switch {
	case l.followers:
		c.add(&l.wakes, &l.e.member, l.e.queueTTLArg)
	case l.e.sharded:
		c.add(&l.wakes)
	}
	v, err := c.run(ctx, l.e.client).Int64()
	c.free()
	if v == requeued {
		// The key went to another executor, and this one is queued again
		// for its followers: their next attempt need not ask.
		l.e.waits.SetAhead(l.Key())
		v = 1
	}
	return result{val: v, err: err}
}

// voidCmd adds l's void script to a pipeline, with the marker's TTL.
func (l *lease) voidCmd(ctx context.Context, p goredis.Pipeliner, ttlArg any) *goredis.Cmd {
	keys := lockNames(l.key)
	if l.shareArg != nil {
		return shareVoidScript.gs.Eval(ctx, p, keys, l.shareArg, l.owner, l.e.claimArg, ttlArg, l.wakes)
	}
	if l.grant != "" {
		return voidScript.gs.Eval(ctx, p, keys, l.owner, l.e.claimArg, ttlArg, l.wakes, l.grant)
	}
	return voidScript.gs.Eval(ctx, p, keys, l.owner, l.e.claimArg, ttlArg, l.wakes)
}

// check turns the result of a renew or release script into an error.
func (l *lease) check(op string, r result) error {
	switch {
	case r.err != nil:
		return fmt.Errorf("redis: %s %q: %w: %w", op, l.Key(), executor.ErrBackend, r.err)
	case r.val != 1:
		return fmt.Errorf("redis: %s %q: %w", op, l.Key(), executor.ErrLockNotHeld)
	}
	return nil
}

// RenewBatch renews every item in one pipeline (per Cluster node) of renew
// scripts and returns one error per item, in order: nil, an error wrapping
// [executor.ErrLockNotHeld] when the key no longer holds the lease's owner,
// or one wrapping [executor.ErrBackend]. Leases of other executors are
// renewed one by one through their own Renew.
func (e *Executor) RenewBatch(ctx context.Context, items []executor.RenewItem) []error {
	errs, idx, own := e.core.Renewals(ctx, items, e.mine)
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
			errs[i] = fmt.Errorf("redis: renew %q: %w: %w", l.Key(), executor.ErrBackend, r.err)
			continue
		}
		v, err := pipelinedInt(cmds[j], r.err)
		errs[i] = e.core.Settle(l, l.check("renew", result{val: v, err: err}))
	}
	return errs
}

// mine returns l as a lease of e, and reports whether it is one.
func (e *Executor) mine(l executor.Lease) (*lease, bool) {
	ml, ok := l.(*lease)
	return ml, ok && ml.e == e
}

// renewPipeline sends one EVALSHA per lease in a pipeline and, if the
// server did not know the script, the refused ones again with EVAL. It
// returns the error of the last pipeline.
func (e *Executor) renewPipeline(ctx context.Context, own []*lease, idx []int, items []executor.RenewItem, cmds []*goredis.Cmd) error {
	_, perr := e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for j, l := range own {
			cmds[j] = l.renewCmd(ctx, p, items[idx[j]].TTL, false)
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
			cmds[j] = l.renewCmd(ctx, p, items[idx[j]].TTL, true)
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
