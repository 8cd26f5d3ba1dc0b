package etcd

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/kit"
)

// leaseRef is the etcd lease an acquisition writes its entry under: a
// shared session's (watchdog locks) or a grant of its own (fixed expiry).
type leaseRef struct {
	id    clientv3.LeaseID
	sess  *session // shared keep-alive session, or nil
	grant *grant   // the acquisition's own etcd lease, or nil
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
// outlast it. Its end is therefore never before the acquisition began plus
// the TTL, which is when the Template's local clock ends the lock.
type grant struct {
	id clientv3.LeaseID

	mu   sync.Mutex
	ttl  time.Duration // as granted: etcd raises a TTL below its minimum
	sent time.Time     // when the grant or the last renewal was sent

	// localEnd is sent plus ttl less the safety margin, read without mu.
	localEnd kit.Instant
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
