package testlog

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
)

// Recorder is a slog handler that keeps the message and level of every
// record it receives, at every level, and a line of each with its time and
// attributes for a failing test to print ([Recorder.Lines]). The zero
// value is ready to use. It is safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	msgs   []string
	levels []slog.Level
	lines  []string
}

// Enabled reports true for every level.
func (r *Recorder) Enabled(context.Context, slog.Level) bool { return true }

// Handle keeps rec's message.
func (r *Recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Message)
	r.levels = append(r.levels, rec.Level)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %q", rec.Time.Format("15:04:05.000"), rec.Level, rec.Message)
	rec.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	r.lines = append(r.lines, b.String())
	return nil
}

// Lines returns a line per record received so far: its time, level,
// message and attributes.
func (r *Recorder) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lines)
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
