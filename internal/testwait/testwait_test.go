package testwait

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestUntil_holds(t *testing.T) {
	var n atomic.Int32
	if !Until(10*time.Second, func() bool { return n.Add(1) == 3 }) {
		t.Fatal("Until = false for a condition that held on the third ask")
	}
	if n.Load() != 3 {
		t.Fatalf("asked %d times, want 3", n.Load())
	}
}

func TestEvery_asksAfterTheBound(t *testing.T) {
	start := time.Now()
	var asks int
	if Every(30*time.Millisecond, 20*time.Millisecond, func() bool { asks++; return false }) {
		t.Fatal("Every = true for a condition that never held")
	}
	if took := time.Since(start); took < 30*time.Millisecond {
		t.Fatalf("gave up after %v, before the bound", took)
	}
	if asks < 2 {
		t.Fatalf("asked %d times, want the first ask and one after the bound at least", asks)
	}
}

func TestEvery_lastAskCounts(t *testing.T) {
	bound := 20 * time.Millisecond
	start := time.Now()
	// Holds only once the bound has passed: the ask after it must count.
	ok := Every(bound, time.Millisecond, func() bool { return time.Since(start) > bound })
	if !ok {
		t.Fatal("Every = false although the condition held when asked after the bound")
	}
}

func TestFor_failsWithWhat(t *testing.T) {
	ft := &fatalT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		For(ft, time.Millisecond, "the thing", func() bool { return false })
	}()
	<-done
	if ft.msg != "after 1ms: the thing" {
		t.Fatalf("Fatalf(%q), want %q", ft.msg, "after 1ms: the thing")
	}
}

// fatalT records Fatalf instead of failing, and ends its goroutine as
// Fatalf does.
type fatalT struct {
	testing.TB
	msg string
}

func (f *fatalT) Helper() {}

func (f *fatalT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
