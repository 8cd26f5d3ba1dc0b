package bench

import (
	"testing"
	"time"
)

// TestFairFloor: the fair queue floor keeps mutual exclusion and serves
// every goroutine (it is measured only in fleet cells, so it is checked
// here in one process).
func TestFairFloor(t *testing.T) {
	env, _ := catalog(t)
	s, err := FairFloor(t.Context(), env.RedisClient())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	res, err := Contended(t.Context(), s, benchKey(s, "fair"), ContendedOptions{Goroutines: 16, Duration: 500 * time.Millisecond, AcquireTimeout: 3 * time.Second, Hold: 100 * time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Violations != 0 || res.Timeouts != 0 || res.Acquired == 0 {
		t.Fatalf("%d acquisitions, %d violations, %d timeouts", res.Acquired, res.Violations, res.Timeouts)
	}
	if res.MinPerG == 0 {
		t.Fatalf("a goroutine was starved: %d–%d acquisitions per goroutine", res.MinPerG, res.MaxPerG)
	}
	t.Logf("%d acquisitions, %d–%d per goroutine, max wait %v", res.Acquired, res.MinPerG, res.MaxPerG, res.Wait.Max)
}
