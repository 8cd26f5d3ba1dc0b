package leases

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func TestInstant(t *testing.T) {
	var i Instant
	now := time.Now()
	i.Store(now)
	if got := i.Load(); !got.Equal(now) {
		t.Fatalf("Load = %v, want %v", got, now)
	}
	if !i.Passed(now) || i.Passed(now.Add(-time.Nanosecond)) {
		t.Fatal("Passed is not at-or-after")
	}
	if i.Advance(now.Add(-time.Second)) || !i.Load().Equal(now) {
		t.Fatal("Advance moved the instant back")
	}
	if !i.Advance(now.Add(time.Second)) || !i.Load().Equal(now.Add(time.Second)) {
		t.Fatal("Advance did not move the instant forward")
	}
}

// The loaded time keeps the monotonic reading: it compares with time.Now
// by the monotonic clock, so a wall-clock step cannot move it.
func TestInstant_monotonic(t *testing.T) {
	var i Instant
	i.Store(time.Now().Add(time.Hour))
	if s := i.Load().String(); !strings.Contains(s, "m=+") {
		t.Fatalf("Load() = %s, without a monotonic reading", s)
	}
}

func TestInstant_advanceConcurrent(t *testing.T) {
	var i Instant
	base := time.Now()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 1000 {
				i.Advance(base.Add(time.Duration(g*1000+k) * time.Microsecond))
			}
		})
	}
	wg.Wait()
	if want := base.Add(7999 * time.Microsecond); !i.Load().Equal(want) {
		t.Fatalf("Load = %v, want the latest %v", i.Load(), want)
	}
}
