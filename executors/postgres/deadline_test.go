package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/postgres"
)

// TestRelease_timeout: a release the paused server does not answer within
// the Template's ReleaseTimeout reports that its deadline passed, not
// that it was cancelled.
func TestRelease_timeout(t *testing.T) {
	s := server(t)
	tpl, err := lock4go.New(lock4go.Config{ReleaseTimeout: 300 * time.Millisecond, Logger: testLogger(t)},
		newExecutor(t, newPool(t, s.Addr()), postgres.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	l, err := tpl.Lock(t.Context(), uniq(t, "release-timeout:"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	err = l.Release(t.Context())
	if rerr := s.Resume(); rerr != nil {
		t.Fatal(rerr)
	}
	if !errors.Is(err, lock4go.ErrBackend) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Fatalf("Release against a paused server = %v, want ErrBackend and context.DeadlineExceeded, not Canceled", err)
	}
	if !strings.Contains(err.Error(), "release timeout") {
		t.Fatalf("Release against a paused server = %v, want it to name the release timeout", err)
	}
}

// TestAcquire_poolExhausted: a Lock whose attempt found every connection
// of the pool in use says so, not that the database did not answer:
// nothing was sent. Both the executor's first acquisition (its check) and
// a later one (the acquire statement) are tried.
func TestAcquire_poolExhausted(t *testing.T) {
	pool := newPoolWith(t, server(t).Addr(), func(c *pgxpool.Config) { c.MaxConns = 1 })
	tpl, err := lock4go.New(lock4go.Config{AcquireTimeout: 200 * time.Millisecond, AttemptGrace: 100 * time.Millisecond, Logger: testLogger(t)},
		newExecutor(t, pool, postgres.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, attempt := range []string{"first", "later"} {
		conn, err := pool.Acquire(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		l, err := tpl.Lock(t.Context(), uniq(t, "exhausted:"))
		conn.Release()
		if err == nil {
			_ = l.Release(t.Context())
			t.Fatalf("%s Lock succeeded with the pool's one connection taken", attempt)
		}
		msg := err.Error()
		if !errors.Is(err, lock4go.ErrBackend) || !strings.Contains(msg, "no free connection") || strings.Contains(msg, "no answer") {
			t.Fatalf("%s Lock on an exhausted pool = %v, want ErrBackend saying the pool had no free connection", attempt, err)
		}
		l, err = tpl.Lock(t.Context(), uniq(t, "free:"))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}
