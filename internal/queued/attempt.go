package queued

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// Codes an acquire statement returns instead of a token (a token is
// positive). Redis's scripts and the lease tables' statements use the
// same.
const (
	// CodeBusy: another owner holds the key; the attempt does not wait.
	CodeBusy = 0
	// CodeVoided: a void marked the owner after a lost reply; nothing was
	// written.
	CodeVoided = -2
	// CodeQueued: the key is busy; the executor stands in its queue.
	CodeQueued = -3
	// CodeKindMismatch: the key is in use as another kind.
	CodeKindMismatch = -4
)

// Tracked reports whether an attempt of req keeps the executor's queue
// bookkeeping in its [Waits]: a waiting attempt of a lock (one waiter
// per key in a process). Waiters of shares share the queue entry and leave
// it alone.
func Tracked(req executor.Request) bool { return req.Wait && !req.Shared && req.Permits == 0 }

// BusyLocally reports whether a waiting attempt of a lock on key can be
// answered "busy" without a round trip: a holder of this process queued the
// executor again for this caller and no release has woken it since, or the
// executor stands in the key's queue, no wake came since its last poll (at
// most [QuietPoll] ago) and listening reports its wake-up channel healthy
// (asked last). Otherwise it records the poll, before the round trip.
func (c *Core[L]) BusyLocally(key string, listening func() bool) bool {
	if c.waits.TakeAhead(key) {
		return true
	}
	now := time.Now()
	if c.waits.Quiet(key, now, QuietPoll) && listening() {
		return true
	}
	c.waits.PolledAt(key, now)
	return false
}

// Answer turns code, what the acquire statement of l for req answered
// (a token, already recorded in l, or a code), into Acquire's error: nil
// when l was taken and registered ([Core.Add]), the busy, voided or kind
// error otherwise. It keeps the queue bookkeeping of tracked attempts
// ([Tracked]): queued after a queued answer, not after a grant.
func (c *Core[L]) Answer(req executor.Request, l L, code int64) error {
	track := Tracked(req)
	switch {
	case code > 0:
		if track {
			c.waits.SetQueued(req.Key, false)
		}
		return c.Add(l)
	case code == CodeQueued:
		if track {
			c.waits.SetQueued(req.Key, true)
		}
		return c.Busy(req.Key)
	case code == CodeBusy:
		return c.Busy(req.Key)
	case code == CodeVoided:
		return c.Voided(req.Key)
	case code == CodeKindMismatch:
		return c.KindErr(req)
	}
	return fmt.Errorf("%s: acquire %q: unexpected answer %d: %w", c.prefix, req.Key, code, executor.ErrBackend)
}

// Abandon undoes an attempt of l, with a lease of ttl, whose caller gave
// up while its statement ran to its end with code: a grant (a positive
// code) is released at once, or voided in the background if that fails.
// It returns the caller's error ([executor.GaveUp]).
func (c *Core[L]) Abandon(ctx context.Context, l L, code int64, ttl time.Duration) error {
	if code > 0 {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cleanup)
		err := c.st.Release(rctx, l)
		cancel()
		if err != nil {
			c.VoidLater(l, ttl, false)
		}
	}
	return c.GaveUp(ctx, l.Key())
}

// CallContext returns the context a statement runs on: ctx's values and
// deadline, but not at once its cancellation. SQL drivers (pgx,
// go-sql-driver/mysql) answer a context that ends mid-statement by closing
// the connection, and a new one costs the database a process or thread and
// the caller a handshake: callers that cancel often (a storm of abandoned
// HTTP requests) would churn the pool. A statement whose ctx is cancelled
// gets CleanupTimeout more to answer, which on a healthy database it does
// within a round trip; the caller then undoes what the statement did if it
// must ([Core.Abandon]). A deadline still ends it at once.
func (c *Core[L]) CallContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Done() == nil {
		return ctx, noCancel
	}
	var (
		cctx   context.Context
		cancel context.CancelFunc
	)
	if d, ok := ctx.Deadline(); ok {
		cctx, cancel = context.WithDeadline(context.WithoutCancel(ctx), d)
	} else {
		cctx, cancel = context.WithCancel(context.WithoutCancel(ctx))
	}
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return // cctx has the same deadline: it ends as timed out, not cancelled
		}
		t := time.NewTimer(c.cleanup)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-done:
		}
	})
	return cctx, func() {
		close(done)
		stop()
		cancel()
	}
}
