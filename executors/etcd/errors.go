package etcd

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/connectivity"

	"github.com/lock4go/lock4go/executor"
)

// ErrClosed reports a call on an [Executor] after [Executor.Close]. It is
// [executor.ErrClosed], under the name this package gave it first.
var ErrClosed = executor.ErrClosed

// Internal causes, wrapped beside the executor sentinels.
var (
	// errSessionLost: the shared keep-alive session ended (lease expired or
	// revoked, or its local deadline passed) while an attempt used it.
	errSessionLost = errors.New("keep-alive session ended")

	// errEntryGone: the own queue entry vanished while waiting (its lease
	// expired or was revoked, or someone deleted the key).
	errEntryGone = errors.New("own queue entry vanished")

	// errLeaseGone: an own (fixed-expire) lease no longer exists.
	errLeaseGone = errors.New("lease not found")

	// errWatch: the predecessor watch ended without telling (compaction, no
	// leader, stream closed); the queue is read again.
	errWatch = errors.New("watch ended")
)

// notAcquired reports a busy key, or a wait that ctx ended.
func notAcquired(ctx context.Context, key string) error {
	if ctx.Err() != nil {
		return fmt.Errorf("etcd: acquire %q: %w", key, executor.GaveUp(ctx))
	}
	return fmt.Errorf("etcd: acquire %q: %w", key, executor.ErrNotAcquired)
}

// acquireErr reports a failed round trip of an attempt on key, as
// [executor.AttemptError] classifies it. When the deadline has passed, the
// context's error is wrapped whatever etcd answered: a deadline propagated
// to the server comes back as etcd's own "request timed out", which alone
// would hide that the caller's time ran out.
func acquireErr(ctx context.Context, key string, err error) error {
	return fmt.Errorf("etcd: acquire %q: %w", key, executor.AttemptError(ctx, err))
}

// opErr reports a failed round trip of op on key.
func opErr(op, key string, err error) error {
	return fmt.Errorf("etcd: %s %q: %w: %w", op, key, executor.ErrBackend, err)
}

// errBusy: another attempt in this process uses the same queue entry
// and the caller did not ask to wait.
var errBusy = errors.New("key in use by another attempt of this executor")

// refusals are the answers etcd gives to a request it did not apply:
// authentication and permission are checked before a request takes effect.
var refusals = []error{
	rpctypes.ErrPermissionDenied,
	rpctypes.ErrAuthFailed,
	rpctypes.ErrUserEmpty,
	rpctypes.ErrUserNotFound,
	rpctypes.ErrInvalidAuthToken,
	rpctypes.ErrAuthOldRevision,
}

// refused reports whether err is etcd refusing a request, which therefore
// left nothing behind: no write to clean up, no write that may land later.
func refused(err error) bool {
	for _, r := range refusals {
		if errors.Is(err, r) {
			return true
		}
	}
	return false
}

// errNoConnection: the client has no working connection to any endpoint.
var errNoConnection = errors.New("the etcd client cannot connect to any endpoint " +
	"(connection in TRANSIENT_FAILURE: a TLS handshake or a dial fails; the etcd client's log names the cause)")

// explain adds errNoConnection to a backend error when the client's
// connection is failing: clientv3 retries a connection that cannot be made
// until the caller's deadline and then returns only the deadline, so an
// untrusted server certificate or a closed port would otherwise go
// unnamed.
func (e *Executor) explain(err error) error {
	if !errors.Is(err, executor.ErrBackend) {
		return err
	}
	if conn := e.c.ActiveConnection(); conn == nil || conn.GetState() != connectivity.TransientFailure {
		return err
	}
	return fmt.Errorf("%w: %w", err, errNoConnection)
}

// errClosedHeld is the loss cause of a lock with a grant of its own held
// when its executor closed.
var errClosedHeld = fmt.Errorf("etcd: the lock was held when the executor closed, and Close revoked its lease: %w", executor.ErrClosed)
