package redlock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// reply is one master's answer to an acquisition.
type reply struct {
	i     int
	lease executor.Lease
	err   error
}

// tally counts the answers of the masters to one acquisition.
type tally struct {
	granted, busy, down int
	busyErr, downErr    error
	refused             error // ErrInvalidKey or ErrInvalidConfig of a master
	silent              int   // masters that had not answered when it gave up
}

// add counts r, keeping its lease in l when it was granted.
func (t *tally) add(l *lease, r reply) {
	switch {
	case r.err == nil:
		l.nodes[r.i] = r.lease
		t.granted++
	case errors.Is(r.err, executor.ErrInvalidKey), errors.Is(r.err, executor.ErrInvalidConfig):
		t.busy++
		if t.refused == nil {
			t.refused = r.err
		}
	case errors.Is(r.err, executor.ErrBackend):
		t.down++
		if t.downErr == nil {
			t.downErr = r.err
		}
	default:
		t.busy++
		if t.busyErr == nil {
			t.busyErr = r.err
		}
	}
}

// Acquire makes one attempt to take req.Key on every master at once, with
// the Redis executor's script (SET key owner NX PX ttl and the key's fencing
// counter). It returns as soon as a majority granted the key within the
// lease's validity (TTL less the time the grants took and the drift, see
// [Options.DriftFactor]); the masters still to answer are finished in the
// background: a late grant joins the lease (renewed and released with it),
// or is released at once if the lease is gone by then. It returns an error as
// soon as a majority can no longer be reached, after releasing every grant
// it got; a master whose reply was lost voids the owner itself (see the
// Redis executor), so a late command cannot take the key there.
//
// The error wraps executor.ErrBackend when too many masters could not answer
// for a majority to be possible, or when the grants took longer than the
// validity; executor.ErrNotAcquired when the key is held on enough masters
// that no majority was free; executor.ErrNotAcquired and the context's error
// when ctx ended first; the master's error when a master refused the key or
// request (executor.ErrInvalidKey, executor.ErrInvalidConfig).
//
// The token is the largest of the majority's tokens (each master's is its
// clock in microseconds, above the key's last token there). Masters of the
// majority whose tokens were behind are raised to it before Acquire returns
// (one more round trip, in parallel), so that any later majority, which
// shares a master with this one, gets a larger token, and every master of
// the lease shows its token. The package documentation states what this
// guarantees.
func (e *Executor) Acquire(ctx context.Context, req executor.Request) (executor.Lease, error) {
	drift, err := e.preflight(ctx, req)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	l := &lease{e: e, key: req.Key, owner: req.Owner, nodes: make([]executor.Lease, len(e.nodes)),
		inflight: make([]bool, len(e.nodes)), start: start.Add(-drift)}
	for i := range l.inflight {
		l.inflight[i] = true
	}
	// The masters' round trips keep ctx's deadline (or the TTL) but not
	// its cancellation: masters still to answer when Acquire returns
	// finish, and their grants are kept or released rather than voided.
	nctx, cancel := e.detach(ctx, req.TTL)
	nreq := req
	nreq.Followers = false
	replies := make(chan reply, len(e.nodes))
	for i, n := range e.nodes {
		e.work.run(func() {
			nl, err := n.Acquire(nctx, nreq)
			replies <- reply{i: i, lease: nl, err: err}
		})
	}
	g := e.newGathering(l, replies, start)
	g.run(ctx)
	err = e.conclude(ctx, nctx, req, l, g, drift)
	e.finish(l, replies, g.pending, cancel, err != nil)
	if err != nil {
		l.abandon(ctx)
		return nil, fmt.Errorf("redlock: acquire %q: %w", req.Key, err)
	}
	if !e.held.Add(l) {
		l.abandon(ctx) // Close began meanwhile
		return nil, closedErr("acquire", req.Key)
	}
	return l, nil
}

// preflight checks req before any round trip and, for a waiting request,
// pauses after a split vote (see splits). It returns the drift of req's
// lease.
func (e *Executor) preflight(ctx context.Context, req executor.Request) (time.Duration, error) {
	if err := req.ValidateFor(e.Capabilities()); err != nil {
		return 0, fmt.Errorf("redlock: acquire: %w", err)
	}
	if req.Shared || req.Permits > 0 {
		return 0, fmt.Errorf("redlock: acquire %q: no read locks or semaphores over a quorum: %w", req.Key, executor.ErrInvalidConfig)
	}
	if e.isClosed() {
		return 0, closedErr("acquire", req.Key)
	}
	drift := e.opts.drift(req.TTL)
	if drift >= req.TTL {
		return 0, fmt.Errorf("redlock: acquire %q: a lease of %v leaves no validity after a drift of %v: %w", req.Key, req.TTL, drift, executor.ErrInvalidConfig)
	}
	if req.Wait {
		e.splits.pause(ctx, req.Key, req.WaitUntil)
	}
	if ctx.Err() != nil {
		return 0, fmt.Errorf("redlock: acquire %q: %w", req.Key, executor.GaveUp(ctx))
	}
	return drift, nil
}

// gathering collects the masters' replies to one acquisition.
type gathering struct {
	e       *Executor
	l       *lease
	replies <-chan reply
	start   time.Time
	t       tally
	pending int
	gaveUp  bool // ctx ended first
	late    bool // NodeTimeout passed after a busy answer
	// awaited counts the masters pending that were not suspect when the
	// attempt began (wasSuspect).
	awaited    int
	wasSuspect []bool
}

// newGathering returns the gathering of the replies to l's attempt,
// started at start.
func (e *Executor) newGathering(l *lease, replies <-chan reply, start time.Time) *gathering {
	g := &gathering{e: e, l: l, replies: replies, start: start, pending: len(e.nodes), wasSuspect: make([]bool, len(e.nodes))}
	for i := range e.nodes {
		g.wasSuspect[i] = e.suspect[i].Load()
		if !g.wasSuspect[i] {
			g.awaited++
		}
	}
	return g
}

// run receives replies until a majority granted, a majority can no longer
// be reached, or ctx ends. An attempt that met another owner (a master
// said busy) does not wait long for masters still silent: a majority is
// then unlikely, and holding its grants while it waits makes other waiters
// fail too. It gives up once every master not found unresponsive lately
// has answered, or after NodeTimeout. Two waiters that split the live
// masters while one master is down then both fail fast, and the split
// pause lets one of them go first. An attempt that met nobody waits for
// slow masters as long as ctx allows. Masters still silent when it gave up
// late become suspect.
func (g *gathering) run(ctx context.Context) {
	e, t := g.e, &g.t
	var timer <-chan time.Time // started by the first busy answer
	for g.pending > 0 && t.granted < e.quorum && t.busy+t.down <= len(e.nodes)-e.quorum && !g.gaveUp {
		if t.busy > 0 && (g.late || g.awaited == 0) {
			break
		}
		if t.busy > 0 && timer == nil {
			tm := time.NewTimer(e.opts.NodeTimeout - time.Since(g.start))
			defer tm.Stop()
			timer = tm.C
		}
		select {
		case r := <-g.replies:
			g.pending--
			g.l.inflight[r.i] = false
			if !g.wasSuspect[r.i] {
				g.awaited--
			}
			e.answered(r.i, r.err)
			t.add(g.l, r)
		case <-ctx.Done():
			g.gaveUp = true
		case <-timer:
			g.late = true
		}
	}
	if g.late && t.granted < e.quorum {
		for i, f := range g.l.inflight {
			if f {
				e.suspect[i].Store(true)
			}
		}
	}
	t.silent = g.pending
}

// conclude returns the outcome of the attempt g gathered: nil when a
// majority granted within the lease's validity (l's token then fenced),
// or why not.
func (e *Executor) conclude(ctx, nctx context.Context, req executor.Request, l *lease, g *gathering, drift time.Duration) error {
	switch {
	case g.gaveUp:
		return executor.GaveUp(ctx)
	case g.t.granted < e.quorum:
		if g.t.granted > 0 && g.t.busy > 0 && req.Wait {
			e.splits.record(req.Key)
		}
		return g.t.failure(len(e.nodes), e.quorum)
	}
	if err := e.fence(nctx, l); err != nil {
		return err
	}
	if took := time.Since(g.start); took >= req.TTL-drift {
		return fmt.Errorf("the grants took %v, the lease's validity is %v: %w", took.Round(time.Microsecond), req.TTL-drift, executor.ErrBackend)
	}
	return nil
}

// answered notes master i's answer to an acquire round trip: a master that
// answered (granted or refused) is no longer suspect; one whose round trip
// failed is.
func (e *Executor) answered(i int, err error) {
	e.suspect[i].Store(err != nil && errors.Is(err, executor.ErrBackend))
}

// failure returns the error of an acquisition that got fewer than quorum of
// n grants.
func (t *tally) failure(n, quorum int) error {
	switch {
	case t.refused != nil:
		return t.refused
	case t.down > n-quorum:
		return fmt.Errorf("%d of %d masters did not answer, a majority is %d: %w", t.down, n, quorum, t.downErr)
	case t.busyErr != nil:
		return fmt.Errorf("held elsewhere on %d of %d masters (%d not answered yet): %w", t.busy, n, t.silent, t.busyErr)
	}
	return fmt.Errorf("%d of %d masters granted, a majority is %d: %w", t.granted, n, quorum, executor.ErrNotAcquired)
}

// fence sets l's token to the largest token of its grants and raises the
// counters of the masters whose tokens were smaller to it, in parallel. A
// master whose counter could not be raised is released and no longer
// counts; the error wraps executor.ErrBackend when fewer than a majority of
// raised masters remain.
func (e *Executor) fence(ctx context.Context, l *lease) error {
	var top int64
	var behind []int
	for _, nl := range l.nodes {
		if nl != nil {
			top = max(top, nl.Token())
		}
	}
	for i, nl := range l.nodes {
		if nl != nil && nl.Token() < top {
			behind = append(behind, i)
		}
	}
	l.token = top
	if len(behind) == 0 {
		return nil
	}
	errs := make([]error, len(behind))
	e.each(len(behind), func(j int) { errs[j] = e.nodes[behind[j]].RaiseToken(ctx, l.key, top) })
	var first error
	held := 0
	for j, err := range errs {
		if err != nil {
			first = cmpErr(first, err)
			e.releaseLater(l.nodes[behind[j]])
			l.nodes[behind[j]] = nil
		}
	}
	for _, nl := range l.nodes {
		if nl != nil {
			held++
		}
	}
	if held < e.quorum {
		return fmt.Errorf("fencing counters raised on %d masters, a majority is %d: %w", held, e.quorum, first)
	}
	return nil
}

// cmpErr returns first, or err when first is nil.
func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// finish hands the pending answers of an acquisition to the background:
// a grant joins l, or is released when l failed or is gone by then. It calls
// cancel once every master answered.
func (e *Executor) finish(l *lease, replies <-chan reply, pending int, cancel context.CancelFunc, failed bool) {
	if pending == 0 {
		cancel()
		return
	}
	if failed {
		l.mu.Lock()
		l.done = true
		l.mu.Unlock()
	}
	collect := func() {
		defer cancel()
		for ; pending > 0; pending-- {
			r := <-replies
			e.answered(r.i, r.err)
			if !l.adopt(r.i, r.lease) {
				if r.lease != nil {
					e.releaseNow(r.lease)
				}
			} else if r.lease.Token() < l.token {
				e.raiseNow(r.i, l.key, l.token)
			}
		}
	}
	if !e.bg.Go(collect) {
		collect()
	}
}

// releaseLater releases nl in the background (in the caller's goroutine
// once the executor is closed).
func (e *Executor) releaseLater(nl executor.Lease) {
	if !e.bg.Go(func() { e.releaseNow(nl) }) {
		e.releaseNow(nl)
	}
}

// raiseNow raises key's counter on master i to token within the clean-up
// timeout, for a grant that came after its acquisition returned: not needed
// for the tokens' order (the majority was raised), but it keeps the
// counters together, so that later acquisitions need no raise.
func (e *Executor) raiseNow(i int, key string, token int64) {
	ctx, cancel := e.cleanupContext(context.Background())
	defer cancel()
	if err := e.nodes[i].RaiseToken(ctx, key, token); err != nil {
		e.opts.Logger.Debug("redlock: raising a late master's counter failed", "key", key, "err", err)
	}
}

// releaseNow releases nl within the clean-up timeout, logging a failure:
// the master then keeps the key until its TTL.
func (e *Executor) releaseNow(nl executor.Lease) {
	ctx, cancel := e.cleanupContext(context.Background())
	defer cancel()
	if err := nl.Release(ctx); err != nil && !errors.Is(err, executor.ErrLockNotHeld) {
		e.opts.Logger.Warn("redlock: a compensating release failed; the master keeps the key until its TTL", "err", err)
	}
}
