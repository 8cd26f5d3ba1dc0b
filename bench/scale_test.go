package bench

import (
	"os"
	"strconv"
	"testing"
)

// TestScale_heldLocks holds 100k locks (LOCK4GO_SCALE_LOCKS overrides) on
// one Redis executor with the watchdog renewing them every second, and
// checks the goroutine, heap and renewal figures.
//
//	go test -run Scale -v ./bench/...
func TestScale_heldLocks(t *testing.T) {
	env, _ := catalog(t)
	if testing.Short() {
		t.Skip("holds 100k locks for about 15s")
	}
	n := 100_000
	if v := os.Getenv("LOCK4GO_SCALE_LOCKS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Scale(t.Context(), env, ScaleOptions{Locks: n}, testLog{t})
	if err != nil {
		t.Fatal(err)
	}
	// One watchdog goroutine per Template plus one transient renewal per
	// executor and tick.
	if r.Lock4goGoroutines > 2 {
		t.Logf("lock4go goroutines at the peak:\n%s", r.Stacks)
		t.Errorf("%d lock4go goroutines while holding %d locks; want at most 2", r.Lock4goGoroutines, n)
	}
	if r.GoroutinesAfter > r.GoroutinesBefore {
		t.Errorf("%d goroutines after release, %d before", r.GoroutinesAfter, r.GoroutinesBefore)
	}
	if r.HeapPerLock > 2048 {
		t.Errorf("%.0f B of heap per held lock; want at most 2048", r.HeapPerLock)
	}
	if r.Lost != 0 {
		t.Errorf("%d locks lost while held", r.Lost)
	}
	// About 1 when renewals keep their schedule; less when a loaded machine
	// stretches the periods (losses would show above), never a storm.
	if got := r.RenewalsPerLockPerPeriod(); got <= 0 || got > 1.3 {
		t.Errorf("%.2f renewals per lock per Expire/3; want about 1", got)
	}
	if r.Others != 0 {
		t.Errorf("%d commands outside renewal pipelines while only holding: %v", r.Others, r.OthersByName)
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(string(p))
	return len(p), nil
}
