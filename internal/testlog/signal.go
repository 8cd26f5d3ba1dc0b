package testlog

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// Signal returns a logger that logs to t as [Logger] does, and a channel
// closed at the first record whose message contains match: a signal for a
// test to await instead of polling a log.
func Signal(t testing.TB, match string) (*slog.Logger, <-chan struct{}) {
	h := signal{next: Logger(t).Handler(), match: match, once: new(sync.Once), fired: make(chan struct{})}
	return slog.New(h), h.fired
}

// signal is the handler of [Signal]: it hands records on to next and
// closes fired at the first one that matches.
type signal struct {
	next  slog.Handler
	match string
	once  *sync.Once
	fired chan struct{}
}

func (h signal) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h signal) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.match) {
		h.once.Do(func() { close(h.fired) })
	}
	return h.next.Handle(ctx, r)
}

func (h signal) WithAttrs(as []slog.Attr) slog.Handler {
	h.next = h.next.WithAttrs(as)
	return h
}

func (h signal) WithGroup(name string) slog.Handler {
	h.next = h.next.WithGroup(name)
	return h
}
