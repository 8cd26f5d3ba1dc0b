package redis_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testwait"
)

// closedAddr returns an address on which nothing listens: dials are
// refused.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// TestAcquire_refusedDial covers Redis not running (issue 24, item 7): a
// refused dial sent nothing, so no warning about a lost reply is logged;
// with a client that makes one attempt (MaxRetries -1), the refusal proves
// it, and no void is even scheduled. With go-redis's retries an earlier
// attempt may have been written before the server went away, so the void
// is kept, quietly.
func TestAcquire_refusedDial(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxRetries int
		voided     bool
	}{
		{"one attempt", -1, false},
		{"retries", 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs logBuffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			c := newClient(t, closedAddr(t), func(o *goredis.Options) {
				o.MaxRetries = tc.maxRetries
				o.MinRetryBackoff, o.MaxRetryBackoff = time.Millisecond, 2*time.Millisecond
			})
			e := newExecutor(t, c, redis.Options{Logger: log, CleanupTimeout: 50 * time.Millisecond})
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
			defer cancel()
			_, err := e.Acquire(ctx, req(uniq(t, "refused:"), time.Minute))
			if !errors.Is(err, executor.ErrBackend) || !redis.RefusedDial(err) {
				t.Fatalf("Acquire with Redis down = %v, want ErrBackend and a refused dial", err)
			}
			if voided := waitLog(&logs, "voiding an attempt whose reply was lost failed", time.Second); voided != tc.voided {
				t.Errorf("void scheduled = %v, want %v; log:\n%s", voided, tc.voided, logs.String())
			}
			if strings.Contains(logs.String(), "level=WARN") {
				t.Errorf("a warning for an acquisition that could not connect:\n%s", logs.String())
			}
		})
	}
}

// waitLog reports whether logs contain match within d.
func waitLog(logs *logBuffer, match string, d time.Duration) bool {
	return testwait.Until(d, func() bool { return strings.Contains(logs.String(), match) })
}
