package bench

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/redis"
)

// lineCounter counts go-redis's own log lines (SetLogger).
type lineCounter struct {
	mu    sync.Mutex
	lines []string
}

func (c *lineCounter) Printf(_ context.Context, format string, v ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines = append(c.lines, fmt.Sprintf(format, v...))
}

func (c *lineCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.lines)
}

// TestRedisDown measures what one Lock with the zero Config does while
// Redis refuses connections, for docs/redis.md ("When Redis is down"): how
// long it takes, how many attempts, and how many lines go-redis logs
// itself. A measurement, not a check of bounds: skipped with -short.
//
//	cd bench && go test -run TestRedisDown -v .
func TestRedisDown(t *testing.T) {
	if testing.Short() {
		t.Skip("a measurement; run it without -short")
	}
	lines := &lineCounter{}
	goredis.SetLogger(lines)
	defer logging.Enable() // go-redis's default logger again
	for _, tc := range []struct {
		name string
		opt  goredis.Options
	}{
		{"ContextTimeoutEnabled", goredis.Options{ContextTimeoutEnabled: true}},
		{"default client", goredis.Options{}},
		{"DialerRetries 1", goredis.Options{ContextTimeoutEnabled: true, DialerRetries: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			opt.Addr = refusedAddr(t)
			rc := goredis.NewClient(&opt)
			defer rc.Close()
			e, err := redis.New(rc, redis.Options{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			tpl, err := lock4go.New(lock4go.Config{Logger: slog.New(slog.DiscardHandler)}, e)
			if err != nil {
				t.Fatal(err)
			}
			before := lines.count()
			start := time.Now()
			_, err = tpl.Lock(t.Context(), "order:42")
			took := time.Since(start)
			var ae *lock4go.AcquireError
			if !errors.As(err, &ae) || !errors.Is(err, lock4go.ErrBackend) || !strings.Contains(err.Error(), "connection refused") {
				t.Fatalf("Lock = %v, want an AcquireError wrapping ErrBackend naming the refused connection", err)
			}
			t.Logf("Lock returned after %v, %d attempts; go-redis logged %d lines during it", took.Round(time.Millisecond), ae.Attempts, lines.count()-before)
		})
	}
}

// refusedAddr returns a loopback address where nothing listens.
func refusedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}
