package leases

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestLoss(t *testing.T) {
	var s Loss
	ran := make(chan struct{}, 3)
	s.After(func() { ran <- struct{}{} })
	stop := s.After(func() { t.Error("a stopped function ran") })
	if !stop() || stop() {
		t.Fatal("stop before Mark: want true once, then false")
	}
	if s.Lost() || s.Cause() != nil {
		t.Fatal("lost before Mark")
	}
	cause := errors.New("gone")
	if !s.Mark(cause) || s.Mark(errors.New("again")) {
		t.Fatal("Mark: want true the first time only")
	}
	if !s.Lost() || s.Cause() != cause {
		t.Fatalf("Lost, Cause = %v, %v; want true, the first cause", s.Lost(), s.Cause())
	}
	if late := s.After(func() { ran <- struct{}{} }); late() {
		t.Fatal("stop of a function registered after Mark reported true")
	}
	for range 2 {
		select {
		case <-ran:
		case <-time.After(5 * time.Second):
			t.Fatal("a registered function did not run")
		}
	}
}

func TestHeld(t *testing.T) {
	var h Held[int]
	for i := range 3 {
		if !h.Add(i) {
			t.Fatal("Add refused before Close")
		}
	}
	h.Remove(1)
	if got := h.Close(); len(got) != 2 || h.Len() != 0 {
		t.Fatalf("Close = %v, Len %d; want the two left and none after", got, h.Len())
	}
	if h.Add(4) || len(h.Close()) != 0 {
		t.Fatal("Add after Close accepted a lease")
	}
}

func TestEndAll(t *testing.T) {
	items := make([]int, 100)
	var ended atomic.Int64
	err := EndAll(time.Second, items, func(ctx context.Context, _ int) error {
		ended.Add(1)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil
	})
	if err != nil || ended.Load() != 100 {
		t.Fatalf("EndAll = %v after %d items, want nil after 100", err, ended.Load())
	}
	start := time.Now()
	err = EndAll(50*time.Millisecond, items, func(ctx context.Context, _ int) error {
		<-ctx.Done()
		return ctx.Err()
	})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("EndAll of stuck items = %v after %v, want the deadline, at once", err, time.Since(start))
	}
}
