package queued

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testlog"
)

// TestCore_AcquireErr: an attempt's failed round trip is ErrBackend, or
// ErrNotAcquired when the caller cancelled it, with the context's cause.
func TestCore_AcquireErr(t *testing.T) {
	c, _ := newCore(t, &fake{}, new(testlog.Recorder), time.Second)
	cause := errors.New("acquire timeout")
	ioTimeout := os.ErrDeadlineExceeded
	cancelled, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	expired, cancel2 := context.WithDeadlineCause(context.Background(), time.Now().Add(-time.Second), cause)
	defer cancel2()
	tests := []struct {
		name      string
		ctx       context.Context
		err       error
		want, not []error
	}{
		{"backend", context.Background(), ioTimeout,
			[]error{executor.ErrBackend, ioTimeout}, []error{executor.ErrNotAcquired}},
		{"cancelled", cancelled, context.Canceled,
			[]error{executor.ErrNotAcquired, context.Canceled, cause}, []error{executor.ErrBackend}},
		{"cancelled mid-read", cancelled, ioTimeout,
			[]error{executor.ErrNotAcquired, context.Canceled, cause}, []error{executor.ErrBackend}},
		{"abandoned at the deadline", expired, context.DeadlineExceeded,
			[]error{executor.ErrBackend, context.DeadlineExceeded, cause}, []error{executor.ErrNotAcquired}},
		{"client timed out at the deadline", expired, ioTimeout,
			[]error{executor.ErrBackend, ioTimeout, context.DeadlineExceeded, cause}, []error{executor.ErrNotAcquired}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := c.AcquireErr(tc.ctx, "k", tc.err)
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("%v: does not wrap %v", err, w)
				}
			}
			for _, n := range tc.not {
				if errors.Is(err, n) {
					t.Errorf("%v: wraps %v", err, n)
				}
			}
		})
	}
}
