package etcd

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/internal/lifecycle"
)

// renewStream is one LeaseKeepAlive stream kept open for the executor's
// one-shot renewals (shared sessions' keep-alives, fixed locks' renewals)
// when the client authenticates with a password.
//
// clientv3's KeepAliveOnce opens a stream for each renewal, and clientv3
// authenticates again for each stream it opens (see streamHold): with a
// password, every renewal cost a bcrypt check on the server. One stream,
// reused, pays it once. Renewals take turns on it, one request and its
// reply at a time (etcd answers a stream's keep-alives in order).
type renewStream struct {
	turn   chan struct{} // a one-slot semaphore: the renewal in flight
	stream pb.Lease_LeaseKeepAliveClient
	cancel context.CancelFunc // ends stream
}

func newRenewStream() renewStream { return renewStream{turn: make(chan struct{}, 1)} }

// keepAliveOnce renews lease id once, as clientv3's KeepAliveOnce does
// (same reply, same errors: rpctypes.ErrLeaseNotFound when the lease is
// gone), over the executor's held stream when the client authenticates
// with a password, over a stream of its own otherwise.
func (e *Executor) keepAliveOnce(ctx context.Context, id clientv3.LeaseID) (*clientv3.LeaseKeepAliveResponse, error) {
	if e.c.Username == "" || e.c.Password == "" {
		return e.c.KeepAliveOnce(ctx, id)
	}
	backoff := lifecycle.Backoff{Min: renewRetryMin, Max: renewRetryMax}
	for {
		resp, err := e.renewOnce(ctx, id)
		if err == nil || !retryable(ctx, err) {
			return resp, clientv3.ContextError(ctx, err)
		}
		// The stream broke (a lost connection, no leader): the next try
		// opens another, as KeepAliveOnce retries until ctx ends. The pause
		// leaves the stream to other renewals.
		if !backoff.Wait(ctx.Done()) {
			return nil, ctx.Err()
		}
	}
}

// renewOnce takes the held stream's turn and makes one try on it.
func (e *Executor) renewOnce(ctx context.Context, id clientv3.LeaseID) (*clientv3.LeaseKeepAliveResponse, error) {
	select {
	case e.renewals.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-e.renewals.turn }()
	return e.renewOnStream(ctx, id)
}

// Bounds of the pause between tries of a renewal whose stream broke.
const (
	renewRetryMin = 10 * time.Millisecond
	renewRetryMax = 500 * time.Millisecond
)

// retryable reports whether a renewal that failed with err (as gRPC
// returned it) is tried again, as clientv3 retries KeepAliveOnce: while
// ctx lasts, after Unavailable (no connection, no leader) and Internal.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	code := status.Code(err)
	return code == codes.Unavailable || code == codes.Internal
}

// renewOnStream sends one keep-alive on the held stream, opening it first
// if needed; the caller has the stream's turn. Any failure drops the stream, so the next call opens a fresh
// one; so does ctx ending while the reply is awaited.
func (e *Executor) renewOnStream(ctx context.Context, id clientv3.LeaseID) (*clientv3.LeaseKeepAliveResponse, error) {
	r := &e.renewals
	if r.stream == nil {
		sctx, cancel := context.WithCancel(e.life)
		s, err := pb.NewLeaseClient(e.c.ActiveConnection()).LeaseKeepAlive(sctx)
		if err != nil {
			cancel()
			return nil, err
		}
		r.stream, r.cancel = s, cancel
	}
	stop := context.AfterFunc(ctx, r.cancel) // unblocks Recv
	err := r.stream.Send(&pb.LeaseKeepAliveRequest{ID: int64(id)})
	var resp *pb.LeaseKeepAliveResponse
	if err == nil {
		resp, err = r.stream.Recv()
	}
	if !stop() || err != nil {
		r.cancel()
		r.stream, r.cancel = nil, nil
	}
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, err
	case resp.TTL <= 0:
		return nil, rpctypes.ErrLeaseNotFound
	}
	return &clientv3.LeaseKeepAliveResponse{ResponseHeader: resp.GetHeader(), ID: clientv3.LeaseID(resp.ID), TTL: resp.TTL}, nil
}
