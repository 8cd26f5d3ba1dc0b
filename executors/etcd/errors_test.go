package etcd_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/etcd"
)

// A deadline the client passes to etcd can come back as etcd's own
// "request timed out" (seen in CI with a 5ms deadline): the error must still
// say that the caller's deadline passed, beside ErrBackend.
func TestAcquireErr_classification(t *testing.T) {
	expired, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancel2 := context.WithCancel(t.Context())
	cancel2()
	cases := []struct {
		name    string
		ctx     context.Context
		err     error
		want    []error
		wantNot []error
	}{
		{"live ctx, server timeout", t.Context(), rpctypes.ErrTimeout,
			[]error{executor.ErrBackend, rpctypes.ErrTimeout}, []error{executor.ErrNotAcquired, context.DeadlineExceeded}},
		{"deadline passed, server timeout", expired, rpctypes.ErrTimeout,
			[]error{executor.ErrBackend, rpctypes.ErrTimeout, context.DeadlineExceeded}, []error{executor.ErrNotAcquired}},
		{"deadline passed, client deadline", expired, context.DeadlineExceeded,
			[]error{executor.ErrBackend, context.DeadlineExceeded}, []error{executor.ErrNotAcquired}},
		{"cancelled", cancelled, context.Canceled,
			[]error{executor.ErrNotAcquired, context.Canceled}, []error{executor.ErrBackend}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := etcd.AcquireErr(tc.ctx, "k", tc.err)
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("acquireErr = %v, want it to wrap %v", err, w)
				}
			}
			for _, w := range tc.wantNot {
				if errors.Is(err, w) {
					t.Errorf("acquireErr = %v, must not wrap %v", err, w)
				}
			}
		})
	}
}

// Only etcd's authentication and permission answers count as refusals (a
// write that certainly left nothing); timeouts and lost connections leave
// the write's outcome unknown.
func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{rpctypes.ErrPermissionDenied, true},
		{rpctypes.ErrAuthFailed, true},
		{rpctypes.ErrInvalidAuthToken, true},
		{rpctypes.ErrUserEmpty, true},
		{rpctypes.ErrUserNotFound, true},
		{rpctypes.ErrAuthOldRevision, true},
		{fmt.Errorf("wrapped: %w", rpctypes.ErrPermissionDenied), true},
		{rpctypes.ErrTimeout, false},
		{rpctypes.ErrNoLeader, false},
		{context.DeadlineExceeded, false},
		{rpctypes.ErrLeaseNotFound, false},
	} {
		if got := etcd.Refused(tc.err); got != tc.want {
			t.Errorf("refused(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
