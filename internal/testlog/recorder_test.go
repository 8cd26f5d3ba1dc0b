package testlog

import (
	"log/slog"
	"testing"
	"time"
)

func TestRecorder(t *testing.T) {
	var r Recorder
	log := slog.New(&r).With("k", "v").WithGroup("g")
	log.Debug("a")
	log.Error("a")
	log.Info("b")
	if n := r.Count("a"); n != 2 {
		t.Errorf("Count(a) = %d, want 2", n)
	}
	if r.Count("c") != 0 || r.Await("c", 20*time.Millisecond) {
		t.Error("a message never logged was found")
	}
	time.AfterFunc(10*time.Millisecond, func() { log.Warn("c") })
	if !r.Await("c", time.Minute) {
		t.Error("Await missed a message logged later")
	}
}
