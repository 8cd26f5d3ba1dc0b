package leases

import (
	"testing"
	"time"
)

// TestMillis: a lease goes to the server rounded up to whole milliseconds.
// Cut down, the server would free the key before the Template's local end
// (1.9ms asked, 1ms held, while the safety margin is 38µs).
func TestMillis(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want int64
	}{
		{time.Nanosecond, 1},
		{time.Millisecond, 1},
		{time.Millisecond + time.Nanosecond, 2},
		{1900 * time.Microsecond, 2},
		{30 * time.Second, 30000},
		{30*time.Second + 500*time.Microsecond, 30001},
	} {
		if got := Millis(tc.d); got != tc.want {
			t.Errorf("Millis(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}
