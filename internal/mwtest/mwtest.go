package mwtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

// Env is a Template over one executor whose events and logs tests can
// watch.
type Env struct {
	Tpl  *lock4go.Template
	Logs *SyncBuffer // the Template's log, at debug level

	mu     sync.Mutex
	events []lock4go.Event
	notify chan struct{}
}

// NewEnv returns an Env over execs, or over a memory executor when none
// is given.
func NewEnv(t testing.TB, execs ...executor.Executor) *Env {
	t.Helper()
	if len(execs) == 0 {
		execs = []executor.Executor{memory.New(memory.Options{})}
	}
	e := &Env{Logs: &SyncBuffer{}, notify: make(chan struct{}, 1)}
	tpl, err := lock4go.New(lock4go.Config{
		Logger: slog.New(slog.NewTextHandler(e.Logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Observer: lock4go.ObserverFunc(func(_ context.Context, ev lock4go.Event) {
			e.mu.Lock()
			e.events = append(e.events, ev)
			e.mu.Unlock()
			select {
			case e.notify <- struct{}{}:
			default:
			}
		}),
	}, execs...)
	if err != nil {
		t.Fatal(err)
	}
	e.Tpl = tpl
	return e
}

// WaitEvent waits for an event of kind on key, up to 5 s.
func (e *Env) WaitEvent(t testing.TB, kind lock4go.EventKind, key string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		e.mu.Lock()
		for _, ev := range e.events {
			if ev.Kind == kind && ev.Key == key {
				e.mu.Unlock()
				return
			}
		}
		e.mu.Unlock()
		select {
		case <-e.notify:
		case <-deadline:
			t.Fatalf("no %v event for %q", kind, key)
		}
	}
}

// Count returns how many events of kind the Template reported.
func (e *Env) Count(kind lock4go.EventKind) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.events {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

// SyncBuffer is a bytes.Buffer safe for concurrent writes.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write implements io.Writer.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// DownExecutor is a backend that cannot be reached: every Acquire fails
// with [executor.ErrBackend] and [ErrDial].
type DownExecutor struct{}

// ErrDial is the dial error of [DownExecutor].
var ErrDial = errors.New("dial tcp 10.9.9.9:6379: connect: connection refused")

// Name implements executor.Executor.
func (DownExecutor) Name() string { return "down" }

// Priority implements executor.Executor.
func (DownExecutor) Priority() int { return 1 }

// Capabilities implements executor.Executor.
func (DownExecutor) Capabilities() executor.Capabilities { return executor.Capabilities{} }

// Acquire implements executor.Executor: it fails.
func (DownExecutor) Acquire(context.Context, executor.Request) (executor.Lease, error) {
	return nil, fmt.Errorf("down: acquire: %w: %w", executor.ErrBackend, ErrDial)
}

var idSeq atomic.Int64

// RandomID returns a distinct id per call.
func RandomID() string { return fmt.Sprint(idSeq.Add(1)) }
