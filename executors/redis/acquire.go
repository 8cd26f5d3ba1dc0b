package redis

import (
	"context"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/queued"
)

// Acquire makes one attempt to take req.Key for req.Owner with one script
// and one round trip: SET key NX PX ttl, with the owner and the fencing
// token (the server clock in microseconds, above the key's last token) as
// its value. It
// never waits; waiting is the Template's, helped by [Executor.WatchRelease].
// A request with req.Wait that finds the key busy queues the executor in
// the key's wait queue in the same round trip, and one that finds the
// executor's claim on the key (a release handed it the key) takes it. A
// waiting request with req.Followers that takes the key queues the
// executor again for the followers; the next waiting attempt of the
// executor on the key then learns that the key is busy without a round
// trip, unless a release has woken the executor since. (When nobody else
// is queued, the followers simply try after the release.)
//
// A key that is the wait queue, the shares or a void marker of a key with a
// hash tag ("<key>##queue", "<key>##shares", "<key>##void:<owner>") is an
// error wrapping [executor.ErrInvalidKey].
//
// It returns an error wrapping [executor.ErrNotAcquired] when another owner
// holds the key (or a key of another type, such as a Redisson lock, sits
// there); [executor.ErrBackend] and the cause when Redis did not answer, with
// the context's error and cause too when ctx's deadline passed during the
// round trip; [executor.ErrNotAcquired] and the context's error and cause
// when ctx was cancelled.
//
// Whenever the script may have run without its token reaching us (a lost
// reply, a call abandoned at ctx's end), Acquire reports an error, never a
// lease, and voids the owner in the background ([queued.Core.VoidLater]): the key is
// freed if the command took it, and taken over by the next waiter if it
// lands later. docs/redis.md tells the whole story.
//
// An attempt with the owner of the current holder returns the holder's
// lease again; an owner must not be reused after an error. After Close
// Acquire fails with an error wrapping [executor.ErrClosed].
func (e *Executor) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	if err := req.ValidateFor(e.Capabilities()); err != nil {
		return nil, fmt.Errorf("redis: acquire: %w", err)
	}
	if reservedKey(req.Key) {
		return nil, fmt.Errorf("redis: acquire %q: the name of a wait queue, shares or void marker: %w", req.Key, executor.ErrInvalidKey)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("redis: acquire %q: %w", req.Key, executor.GaveUp(ctx))
	}
	if e.core.Closed() {
		return nil, e.core.ClosedErr("acquire", req.Key)
	}
	share := req.Shared || req.Permits > 0
	var ask queued.Ask
	if !share && req.Wait {
		var busy bool
		if ask, busy = e.busyLocally(req.Key); busy {
			return nil, fmt.Errorf("redis: %q: %w", req.Key, executor.ErrNotAcquired)
		}
	}
	l := newLease(e, req.Key, req.Owner)
	if share {
		l.shareArg = queued.ShareKind(req) + "|" + req.Owner
	}
	l.followers = !share && req.Wait && req.Followers
	if req.Wait {
		l.epoch = e.wakeEpoch(req.Key)
	}
	if !share && req.Wait {
		// A wake announced a direct grant: the script confirms it. Taken
		// here, not in the call: a call abandoned by its ctx goes on in a
		// worker while the void reads l.grant.
		if g, ok := e.waits.takeGrant(req.Key, e.opts.ClaimWindow); ok {
			l.grant, l.granted = g.value, g.granted
		}
	}
	var r result
	if e.direct(ctx) {
		r = l.try(ctx, req)
	} else {
		r = e.run(ctx, func(ctx context.Context) result { return l.try(ctx, req) })
	}
	return e.outcome(ctx, l, req, r, ask)
}

// busyLocally reports whether a waiting attempt of a lock on key can be
// answered "busy" without a round trip: a holder of this process queued the
// executor again for this caller and no release has woken it since, or the
// executor stands in the key's queue, subscribed, and no wake came since its
// last poll (at most [queued.QuietPoll] ago). Otherwise it records the poll, and
// returns it for the answer (see [queued.Waits.Joined]).
func (e *Executor) busyLocally(key string) (queued.Ask, bool) {
	if e.waits.TakeAhead(key) {
		return queued.Ask{}, true
	}
	now := time.Now()
	if !e.opts.pollEveryRetry && e.waits.Quiet(key, now, queued.QuietPoll) && e.wakesHealthy(key) {
		return queued.Ask{}, true
	}
	e.waits.PolledAt(key, now)
	return e.waits.Ask(now), false
}

// outcome turns the result r of l's acquire script into a lease or an
// error, and keeps the executor's queue bookkeeping: a lock's (one waiter
// per key in a process); waiters of shares share the entry and leave it
// alone.
func (e *Executor) outcome(ctx context.Context, l *lease, req executor.Request, r result, ask queued.Ask) (executor.Lease, error) {
	track := req.Wait && l.shareArg == nil
	switch {
	case r.err == nil && r.val > 0:
		l.taken(r.val)
		if err := e.checkReplicas(ctx, l, r.acked); err != nil {
			return nil, err
		}
		if track {
			e.waits.SetQueued(req.Key, false)
			if r.joined {
				e.waits.SetAhead(req.Key)
			}
		}
		if err := e.core.Add(l); err != nil {
			return nil, err
		}
		return l, nil
	case r.err == nil && r.val == queued.CodeQueued:
		if track {
			e.waits.Joined(req.Key, ask)
		}
		if l.epoch == 0 || l.epoch != e.wakeEpoch(req.Key) {
			// The wake subscription was not active, or was (re)made, while
			// this attempt registered: a release meanwhile may have
			// published to nobody. The next attempt asks the server.
			e.waits.Wake(req.Key, e.opts.ClaimWindow)
		}
		return nil, fmt.Errorf("redis: %q: %w", req.Key, executor.ErrNotAcquired)
	case isNil(r.err):
		return nil, fmt.Errorf("redis: %q: %w", req.Key, executor.ErrNotAcquired)
	case r.err == nil && r.val == queued.CodeVoided:
		return nil, e.core.Voided(req.Key)
	case r.err == nil && r.val == queued.CodeKindMismatch:
		return nil, e.core.KindErr(req)
	}
	// A failed or abandoned call, or a retried share acquisition: the key
	// may hold req.Owner, unless nothing was sent.
	if !e.neverSent(r.err) {
		// A refused dial most likely sent nothing: its void's failures are
		// debug messages.
		e.core.VoidLater(l, req.TTL, queued.Quiet(refusedDial(r.err)))
	}
	err := r.err
	if err == nil {
		err = errNoCounter
	}
	return nil, e.core.AcquireErr(ctx, req.Key, err)
}

// try runs the acquire script of l's kind: a lock's, or a share's.
func (l *lease) try(ctx context.Context, req executor.Request) result {
	if l.shareArg != nil {
		return l.acquireShare(ctx, req, queued.ShareKind(req))
	}
	return l.acquire(ctx, req)
}

// acquire runs the acquire script for l and req: a waiting request
// queues the executor when the key is busy, and takes it when it holds the
// executor's claim.
func (l *lease) acquire(ctx context.Context, req executor.Request) result {
	e := l.e
	var c *call
	if !req.Wait && !e.opts.StrictFIFO {
		// A plain attempt: the script needs the key and its shares, the
		// owner and the TTL.
		c = newCall(acquireScript, &l.key, 2)
		c.add(&l.owner, e.msArg(req.TTL))
	} else {
		member, flags := noArg, 0
		if req.Wait {
			member = &e.member
			if e.waits.Queued(req.Key) {
				flags |= flagInQueue
			}
			if req.Followers {
				flags |= flagFollowers
			}
		}
		if e.opts.StrictFIFO {
			flags |= flagStrict
		}
		c = newCall(acquireScript, &l.key, lockNameCount)
		c.add(&l.owner, e.msArg(req.TTL), member, e.queueTTLArg, flagArgs[flags], e.claimArg, &l.wakes)
		if l.grant != "" {
			c.add(&l.grant, &l.granted)
		}
	}
	cmd, acked := e.runAcquire(ctx, c)
	r := acquireResult(cmd, acked)
	c.free()
	return r
}

// acquireResult reads the reply of an acquire script: a token, {token, 1}
// when taken and queued again for the followers, or a code.
func acquireResult(cmd *goredis.Cmd, acked int64) result {
	if v, ok := cmd.Val().([]any); ok && len(v) == 2 {
		token, _ := v[0].(int64)
		return result{val: token, joined: true, acked: acked}
	}
	v, err := cmd.Int64()
	return result{val: v, err: err, acked: acked}
}

// noArg is the empty script argument, boxed once.
var noArg any = ""

// The flags of an acquire script call, summed into one argument (see
// lua/acquire.lua).
const (
	flagInQueue   = 1 // the executor may stand in the key's queue
	flagFollowers = 2 // callers of the process wait behind this one
	flagStrict    = 4 // Options.StrictFIFO
)

// flagArgs are the boxed arguments of each sum of flags.
var flagArgs = [8]any{"0", "1", "2", "3", "4", "5", "6", "7"}

// msArg returns d in whole milliseconds (at least 1) as a script argument,
// reusing the boxed value of the last duration seen: leases mostly share
// one TTL, and this spares an allocation per call.
func (e *Executor) msArg(d time.Duration) any {
	if c := e.lastTTL.Load(); c != nil && c.d == d {
		return c.arg
	}
	c := &ttlArg{d: d, arg: leases.Millis(d)}
	e.lastTTL.Store(c)
	return c.arg
}

// ttlArg is a duration and its boxed script argument.
type ttlArg struct {
	d   time.Duration
	arg any
}

// Internal causes, wrapped beside the executor sentinels.
var (
	// errNoCounter: a share acquisition retried by go-redis found its share
	// taken by its first attempt, whose token is not kept.
	errNoCounter = errors.New("redis: the token of a retried share acquisition is unknown")
)

// runAcquire runs the acquire call c like [call.run] and, with
// [Options.Replicas], sends WAIT behind it in one pipeline on the same
// connection (WAIT counts the replicas that acknowledged the connection's
// writes so far). It returns the script's reply and how many replicas
// acknowledged (-1 without Replicas).
func (e *Executor) runAcquire(ctx context.Context, c *call) (*goredis.Cmd, int64) {
	if e.opts.Replicas == 0 {
		return c.run(ctx, e.client), -1
	}
	cmd, acked := e.acquireWaiting(ctx, c)
	if isNoScript(cmd.Err()) {
		c.args[0], c.args[1] = "eval", &c.s.src
		cmd, acked = e.acquireWaiting(ctx, c)
	}
	return cmd, acked
}

// acquireWaiting sends c as its arguments stand, and WAIT, in one pipeline.
func (e *Executor) acquireWaiting(ctx context.Context, c *call) (*goredis.Cmd, int64) {
	var cmd *goredis.Cmd
	var wait *goredis.Cmd
	_, perr := e.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		cmd = c.send(ctx, p)
		wait = p.Do(ctx, "wait", e.opts.Replicas, leases.Millis(e.opts.ReplicaTimeout))
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
		e.log.Debug("redis: releasing an acquisition that too few replicas acknowledged failed; it ends with its TTL", "key", l.Key(), "err", err)
	}
	return fmt.Errorf("redis: acquire %q: acknowledged by %d of %d replicas within %v: %w",
		l.Key(), acked, e.opts.Replicas, e.opts.ReplicaTimeout, executor.ErrBackend)
}
