package testlog

import (
	"bytes"
	"log/slog"
	"sync"
	"testing"
)

// Logger returns a logger that writes to t's log at debug level until t
// ends. Background work (a Template releasing a lost lock, an executor's
// void of a lost reply) may log after the test has returned, which testing
// forbids: such lines are dropped.
func Logger(t testing.TB) *slog.Logger {
	w := &tWriter{t: t}
	t.Cleanup(func() {
		w.mu.Lock()
		w.ended = true
		w.mu.Unlock()
	})
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// tWriter writes lines to t's log until t ends.
type tWriter struct {
	t     testing.TB
	mu    sync.Mutex
	ended bool
}

func (w *tWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.ended {
		w.t.Log(string(bytes.TrimRight(p, "\n")))
	}
	return len(p), nil
}
