package testwait

import (
	"testing"
	"time"
)

// Step is how often [Until] and [For] ask their condition.
const Step = 10 * time.Millisecond

// Until asks cond every [Step] until it holds or d has passed, and reports
// whether it held.
func Until(d time.Duration, cond func() bool) bool { return Every(d, Step, cond) }

// Every asks cond every step until it holds or d has passed, and reports
// whether it held. cond is asked once more after d has passed.
func Every(d, step time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(step)
	}
}

// For fails t at once (Fatalf), naming what was awaited, unless cond holds
// within d ([Until]). It must be called from the test's goroutine.
func For(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Until(d, cond) {
		t.Fatalf("after %v: %s", d, what)
	}
}
