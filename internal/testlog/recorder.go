package testlog

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Recorder is a slog handler that keeps the message and level of every
// record it receives, at every level. The zero value is ready to use. It
// is safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	msgs   []string
	levels []slog.Level
}

// Enabled reports true for every level.
func (r *Recorder) Enabled(context.Context, slog.Level) bool { return true }

// Handle keeps rec's message.
func (r *Recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Message)
	r.levels = append(r.levels, rec.Level)
	return nil
}

// WithAttrs returns r: attributes are not kept.
func (r *Recorder) WithAttrs([]slog.Attr) slog.Handler { return r }

// WithGroup returns r: groups are not kept.
func (r *Recorder) WithGroup(string) slog.Handler { return r }

// Count returns how many records had the message msg.
func (r *Recorder) Count(msg string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.msgs {
		if m == msg {
			n++
		}
	}
	return n
}

// CountAt returns how many records had the message msg at level.
func (r *Recorder) CountAt(level slog.Level, msg string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for i, m := range r.msgs {
		if m == msg && r.levels[i] == level {
			n++
		}
	}
	return n
}

// Await reports whether a record with the message msg arrives within d,
// polling every 10ms.
func (r *Recorder) Await(msg string, d time.Duration) bool {
	for deadline := time.Now().Add(d); r.Count(msg) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}
