package etcd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/leases"
	"github.com/lock4go/lock4go/internal/lifecycle"
)

// session is one lease shared by every watchdog lock of one TTL, kept alive
// by one goroutine, like etcd's concurrency.Session. It differs in how it
// learns of a loss: concurrency.Session's Done closes when the client's
// estimate of the lease runs out, which is the receipt of the last
// keep-alive reply plus the TTL, checked once a second, so up to a round
// trip plus a second after etcd may already have expired the lease and
// handed the lock to someone else. A session sends each keep-alive itself,
// knows when it sent it, and declares the lease lost at that send time plus
// the TTL, less a small margin: never after etcd could have expired it.
type session struct {
	e   *Executor
	id  clientv3.LeaseID
	ttl time.Duration // as granted: etcd raises a TTL below its minimum

	// lost is cancelled, with the reason as its cause, when the lease is
	// gone or can no longer be vouched for: every lease of the session
	// reports its loss (AfterLost) from it. It is a signal, not a request context.
	lost     context.Context
	markLost context.CancelCauseFunc

	// stopCtx ends the keep-alive loop (Close); stopped is closed when the
	// loop has returned.
	stopCtx context.Context
	stop    context.CancelFunc
	stopped chan struct{}

	// renewed is when the grant or the last answered keep-alive was sent:
	// the lease lasts at least until then plus its TTL. end is that less
	// the safety margin: the local end of every lock of the session.
	renewed, end leases.Instant

	// held are the locks under this lease, whose entries every keep-alive
	// round checks (entrycheck.go), one check at a time.
	held     heldEntries
	checking atomic.Bool

	// writes are the entry writes under this lease whose outcome is
	// unknown, swept until seen applied or the session ends (cleanup.go).
	writes voidWrites
}

// pendingSession is a grant in flight that concurrent attempts wait for
// instead of granting leases of their own.
type pendingSession struct {
	done chan struct{}
	err  error
}

// grantTimeout bounds one grant of a shared session. The grant runs under
// the executor's lifetime, not under the context of the attempt that
// asked for it, so that a caller with no deadline behind a dead connection
// cannot hold up every other attempt of that TTL after etcd is back.
const grantTimeout = 5 * time.Second

// errGrantTimeout: a shared session's grant did not finish within
// grantTimeout; the attempts still waiting for it grant again.
var errGrantTimeout = errors.New("lease grant timed out")

// session returns the live shared session for ttl seconds, granting one
// when there is none: one grant at a time per TTL, in the background
// (grantShared), which every caller waits for until its own ctx ends.
func (e *Executor) session(ctx context.Context, ttl int64) (*session, error) {
	for {
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			return nil, ErrClosed
		}
		if s := e.sessions[ttl]; s != nil && s.lost.Err() == nil {
			e.mu.Unlock()
			return s, nil
		}
		p := e.pending[ttl]
		start := p == nil
		if start {
			p = &pendingSession{done: make(chan struct{})}
			e.pending[ttl] = p
		}
		e.mu.Unlock()
		if start && !e.bg.Go(func() { e.grantShared(ttl, p) }) {
			e.settleGrant(ttl, p, nil, ErrClosed)
		}
		select {
		case <-p.done:
		case <-ctx.Done():
			return nil, executor.ContextError(ctx)
		}
		if p.err != nil && !errors.Is(p.err, errGrantTimeout) {
			return nil, p.err
		}
		// Granted (look again), or timed out (grant again).
	}
}

// grantShared grants the shared session of ttl seconds for the callers
// waiting on p, bounded by grantTimeout and ended by Close.
func (e *Executor) grantShared(ttl int64, p *pendingSession) {
	ctx, cancel := context.WithTimeout(e.life, grantTimeout)
	defer cancel()
	s, err := e.grantSession(ctx, ttl)
	switch {
	case err == nil:
	case e.life.Err() != nil:
		err = ErrClosed
	case ctx.Err() != nil:
		err = fmt.Errorf("%w after %v: %w", errGrantTimeout, grantTimeout, err)
	}
	e.settleGrant(ttl, p, s, err)
}

// settleGrant ends the pending grant p with its outcome: s becomes the
// shared session of ttl seconds unless the executor was closed meanwhile.
func (e *Executor) settleGrant(ttl int64, p *pendingSession, s *session, err error) {
	e.mu.Lock()
	delete(e.pending, ttl)
	closed := e.closed
	switch {
	case err == nil && closed:
		err = ErrClosed
	case err == nil:
		e.sessions[ttl] = s
	}
	p.err = err
	close(p.done)
	e.mu.Unlock()
	if s != nil && closed {
		_ = s.close()
	}
}

// grantSession grants a lease of ttl seconds and starts its keep-alive loop.
func (e *Executor) grantSession(ctx context.Context, ttl int64) (*session, error) {
	sent := time.Now()
	resp, err := e.c.Grant(ctx, ttl)
	if err != nil {
		// A lost reply may leave a lease without keys: it expires by TTL.
		return nil, err
	}
	s := &session{e: e, id: resp.ID, ttl: time.Duration(resp.TTL) * time.Second, stopped: make(chan struct{})}
	s.confirm(sent, s.ttl)
	s.lost, s.markLost = context.WithCancelCause(context.Background())
	s.stopCtx, s.stop = context.WithCancel(e.life)
	if !e.bg.Go(func() { s.keepAlive(sent) }) {
		close(s.stopped)
		_ = s.close()
		return nil, ErrClosed
	}
	return s, nil
}

// keepAlive renews the lease every third of its TTL until it is lost or
// stopped. sent is when the grant was sent.
func (s *session) keepAlive(sent time.Time) {
	defer close(s.stopped)
	ttl := s.ttl
	timer := time.NewTimer(ttl / 3)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
		case <-s.stopCtx.Done():
			return
		}
		// The lease lasts at least until the last renewal's send time plus
		// the TTL; a renewal still unanswered then cannot vouch for it.
		ctx, cancel := context.WithDeadline(s.stopCtx, sent.Add(ttl-executor.SafetyMargin(ttl)))
		at := time.Now()
		resp, err := s.e.keepAliveOnce(ctx, s.id)
		cancel()
		if s.stopCtx.Err() != nil {
			return
		}
		if err != nil {
			s.lose(err)
			s.revoke()
			return
		}
		sent, ttl = at, time.Duration(resp.TTL)*time.Second
		s.confirm(sent, ttl)
		s.startCheck(sent.Add(ttl / 3))
		timer.Reset(time.Until(sent.Add(ttl / 3)))
	}
}

// confirm records a grant or keep-alive sent at sent that etcd answered
// with ttl: the lease lasts at least until sent plus ttl.
func (s *session) confirm(sent time.Time, ttl time.Duration) {
	s.renewed.Advance(sent)
	s.end.Advance(sent.Add(ttl - executor.SafetyMargin(ttl)))
}

// renewedAt returns when the grant or the last answered keep-alive was sent.
func (s *session) renewedAt() time.Time { return s.renewed.Load() }

// lose marks the session lost with cause and takes it out of service.
func (s *session) lose(cause error) {
	if s.lost.Err() != nil {
		return
	}
	if errors.Is(cause, rpctypes.ErrLeaseNotFound) {
		cause = errLeaseGone
	}
	s.markLost(fmt.Errorf("%w: lease %x: %w", errSessionLost, int64(s.id), cause))
	s.e.entryLocks.dropLease(s.id) // after markLost: see entryLocks.dropLease
	s.stop()
	s.e.dropSession(s)
	s.e.log.LogAttrs(context.Background(), slog.LevelWarn, "etcd: keep-alive session lost; its locks are lost",
		slog.String("executor", s.e.name), slog.String("lease", fmt.Sprintf("%x", int64(s.id))),
		slog.Duration("ttl", s.ttl), slog.Any("error", cause))
}

// revoke revokes the lease after a loss, best effort, so that its entries
// go at once instead of when etcd expires the lease (a restarted or newly
// elected etcd extends every lease by its TTL). It retries for one TTL.
func (s *session) revoke() {
	until := time.Now().Add(s.ttl)
	backoff := lifecycle.Backoff{Min: cleanupBackoff, Max: cleanupMaxBackoff}
	for time.Now().Before(until) {
		ctx, cancel := s.e.detached()
		_, err := s.e.c.Revoke(ctx, s.id)
		cancel()
		if err == nil || errors.Is(err, rpctypes.ErrLeaseNotFound) {
			return
		}
		if !backoff.Wait(s.e.life.Done()) {
			return
		}
	}
}

// close stops the keep-alive loop, marks the session lost (so holders stop
// before their keys go) and revokes the lease.
func (s *session) close() error {
	s.stop()
	<-s.stopped
	s.markLost(fmt.Errorf("%w: %w", errSessionLost, ErrClosed))
	s.e.entryLocks.dropLease(s.id)
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	if _, err := s.e.c.Revoke(ctx, s.id); err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return fmt.Errorf("etcd: revoke lease %x: %w", int64(s.id), err)
	}
	return nil
}

// dropSession removes s from the shared sessions, if it is still there.
func (e *Executor) dropSession(s *session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ttl, cur := range e.sessions {
		if cur == s {
			delete(e.sessions, ttl)
		}
	}
}

// leaseRef is the etcd lease an attempt writes its entry under: a
// shared session's (watchdog locks) or a grant of its own (fixed expiry).
type leaseRef struct {
	id    clientv3.LeaseID
	sess  *session // shared keep-alive session, or nil
	grant *grant   // the attempt's own etcd lease, or nil
}

// gone returns a channel closed when a shared session is lost; nil (never
// ready) for a grant.
func (r leaseRef) gone() <-chan struct{} {
	if r.sess != nil {
		return r.sess.lost.Done()
	}
	return nil
}

// grant is the lease of one fixed-expire lock. Nothing keeps it alive
// while the lock is held, so it ends with its TTL; while the entry waits in
// the queue it is renewed every third of its TTL, so a long queue cannot
// outlast it. Its end is therefore never before the attempt began plus
// the TTL, which is when the Template's local clock ends the lock.
type grant struct {
	id clientv3.LeaseID

	mu   sync.Mutex
	ttl  time.Duration // as granted: etcd raises a TTL below its minimum
	sent time.Time     // when the grant or the last renewal was sent

	// localEnd is sent plus ttl less the safety margin, read without mu.
	localEnd leases.Instant
}

// grantFixed grants a lease of ttl seconds, with no keep-alive.
func (e *Executor) grantFixed(ctx context.Context, ttl int64) (*grant, error) {
	sent := time.Now()
	resp, err := e.c.Grant(ctx, ttl)
	if err != nil {
		// A lost reply may leave a lease without keys: it expires by TTL.
		return nil, err
	}
	g := &grant{id: resp.ID, ttl: time.Duration(resp.TTL) * time.Second, sent: sent}
	g.localEnd.Store(sent.Add(g.ttl - executor.SafetyMargin(g.ttl)))
	return g, nil
}

// end returns when the lease ends at the earliest, by the local clock.
func (o *grant) end() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.sent.Add(o.ttl)
}

// start returns when the grant or the last renewal was sent.
func (o *grant) start() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.sent
}

// renewIn returns how long until the next renewal is due while waiting.
func (o *grant) renewIn() time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	return time.Until(o.sent.Add(o.ttl / 3))
}

// renew resets the lease to its full TTL. It returns errLeaseGone when the
// lease no longer exists.
func (o *grant) renew(ctx context.Context, e *Executor) error {
	at := time.Now()
	resp, err := e.keepAliveOnce(ctx, o.id)
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return errLeaseGone
	}
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if at.After(o.sent) {
		o.sent = at
	}
	o.ttl = time.Duration(resp.TTL) * time.Second
	o.localEnd.Advance(at.Add(o.ttl - executor.SafetyMargin(o.ttl)))
	return nil
}
