package grpclock_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutine leak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// env is a Template over one executor whose events and logs tests can watch.
type env struct {
	tpl  *lock4go.Template
	logs *syncBuffer

	mu     sync.Mutex
	events []lock4go.Event
	notify chan struct{}
}

func newEnv(t *testing.T, execs ...executor.Executor) *env {
	t.Helper()
	if len(execs) == 0 {
		execs = []executor.Executor{memory.New(memory.Options{})}
	}
	e := &env{logs: &syncBuffer{}, notify: make(chan struct{}, 1)}
	tpl, err := lock4go.New(lock4go.Config{
		Logger: slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
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
	e.tpl = tpl
	return e
}

// waitEvent waits for an event of kind on key.
func (e *env) waitEvent(t *testing.T, kind lock4go.EventKind, key string) {
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

func (e *env) count(kind lock4go.EventKind) int {
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

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// downExecutor is a backend that cannot be reached.
type downExecutor struct{}

var errDial = errors.New("dial tcp 10.9.9.9:6379: connect: connection refused")

func (downExecutor) Name() string                        { return "down" }
func (downExecutor) Priority() int                       { return 1 }
func (downExecutor) Capabilities() executor.Capabilities { return executor.Capabilities{} }
func (downExecutor) Acquire(context.Context, executor.Request) (executor.Lease, error) {
	return nil, fmt.Errorf("down: acquire: %w: %w", executor.ErrBackend, errDial)
}

// maxTracker records the largest number of concurrent holders.
type maxTracker struct {
	mu       sync.Mutex
	cur, max int
}

func (m *maxTracker) enter() {
	m.mu.Lock()
	m.cur++
	m.max = max(m.max, m.cur)
	m.mu.Unlock()
}

func (m *maxTracker) leave() {
	m.mu.Lock()
	m.cur--
	m.mu.Unlock()
}

func (m *maxTracker) peak() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.max
}

var idSeq atomic.Int64

// randomID returns a distinct id per call.
func randomID() string { return fmt.Sprint(idSeq.Add(1)) }
