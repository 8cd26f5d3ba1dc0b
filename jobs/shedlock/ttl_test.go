package shedlock_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// TestAcquire_belowShortestLease: a lease shorter than a millisecond,
// which ShedLock's layouts count leases in, is ErrInvalidConfig before any
// round trip, as on every executor (Redis answered PX 0 with an error, an
// ErrBackend; the table took a row that had already expired).
func TestAcquire_belowShortestLease(t *testing.T) {
	for _, l := range layouts(t) {
		t.Run(l.backend, func(t *testing.T) {
			req := executor.Request{Key: jobName(), Owner: "o", TTL: 500 * time.Microsecond}
			lease, err := l.ex.Acquire(t.Context(), req)
			if err == nil {
				_ = lease.Release(t.Context())
			}
			if !errors.Is(err, executor.ErrInvalidConfig) {
				t.Fatalf("Acquire with a lease of %v = %v, want ErrInvalidConfig", req.TTL, err)
			}
		})
	}
}
