package timerprobe

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain fails the package if a probe's goroutine outlives its Stop.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestStartCalls: a slow call is recorded from when it began, with how
// long it took, and MaxOver finds it from any window its span overlaps,
// not from one that ends before it began.
func TestStartCalls(t *testing.T) {
	var n atomic.Int32
	slowDone := make(chan struct{})
	p := StartCalls(func(ctx context.Context) error {
		if n.Add(1) == 3 {
			defer close(slowDone)
			select {
			case <-time.After(60 * time.Millisecond):
			case <-ctx.Done():
			}
		}
		return nil
	})
	<-slowDone
	delays := p.Stop()
	var slow Delay
	for _, d := range delays {
		if d.Delay >= 60*time.Millisecond {
			slow = d
		}
	}
	if slow.Due == 0 {
		t.Fatalf("delays %v: no call of 60ms or more", delays)
	}
	mid := slow.Due + int64(30*time.Millisecond)
	if got := MaxOver(delays, mid, mid); got < 60*time.Millisecond {
		t.Errorf("MaxOver inside the slow call = %v, want its %v", got, slow.Delay)
	}
	if got := MaxOver([]Delay{slow}, 0, slow.Due-1); got != 0 {
		t.Errorf("MaxOver of a window before the call = %v, want 0", got)
	}
}
