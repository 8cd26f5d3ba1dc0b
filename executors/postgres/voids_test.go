package postgres_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/testlog"
	"github.com/lock4go/lock4go/internal/testwait"
)

// Messages of the executor's core about its voids.
const (
	msgVoidFailed    = "postgres: voiding an attempt whose reply was lost failed; retrying in the background (logged once until voids succeed again)"
	msgVoidRecovered = "postgres: voids of attempts whose reply was lost succeed again"
)

// TestVoids_outage: acquisitions whose replies are lost while their voids
// cannot reach the database either (every reply dropped: an outage for
// the voids). The rows the acquisitions took stay held meanwhile, the
// outage is one warning however many voids and rounds fail, and once the
// database answers again every pending void runs: the keys are free,
// and the recovery is logged. The executor has the default clean-up
// timeout: with 300 ms (to shorten the outage's rounds) a round of five
// voids right after the recovery, one statement after another, did not
// finish under make test-under-load, and its failure was a second warning
// after the recovery's.
func TestVoids_outage(t *testing.T) {
	const n = 6
	p := newProxy(t)
	rec := new(testlog.Recorder)
	pool := newPoolWith(t, p.Addr(), func(c *pgxpool.Config) { c.MaxConns = n + 4 })
	e := newExecutor(t, pool, postgres.Options{Logger: slog.New(rec)})
	observer := direct(t)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = uniq(t, "outage:")
	}
	warmExecutor(t, e)
	warm(t, pool, n+1) // with replies dropped, no new connection gets through its handshake
	p.SetDropReplies(true)
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
			defer cancel()
			if l, err := e.Acquire(ctx, req(k, time.Minute)); err == nil {
				t.Errorf("Acquire with its reply dropped returned a lease (token %d)", l.Token())
			}
		})
	}
	testwait.For(t, 10*time.Second, "every acquisition granted on the server", func() bool { return allHeld(t, observer, keys) })
	p.SetBlackhole(true) // the voids cannot reach the database
	wg.Wait()
	testwait.For(t, 10*time.Second, "a failed round of voids", func() bool { return rec.Count(msgVoidFailed) >= 2 })
	if !allHeld(t, observer, keys) {
		t.Fatal("a key was freed during the outage")
	}
	p.SetBlackhole(false)
	p.SetDropReplies(false)
	p.Cut() // the connections whose replies were dropped are out of step
	if !rec.Await(msgVoidRecovered, 15*time.Second) {
		t.Fatal("voids did not recover after the outage")
	}
	testwait.For(t, 5*time.Second, "every key voided after the outage", func() bool {
		for _, k := range keys {
			if held(t, observer, k) {
				return false
			}
		}
		return true
	})
	if w := rec.CountAt(slog.LevelWarn, msgVoidFailed); w != 1 {
		t.Fatalf("%d warnings for one outage of the voids (%d failed rounds), want 1; the executor's log:\n%s",
			w, rec.Count(msgVoidFailed), strings.Join(rec.Lines(), "\n"))
	}
}

// allHeld reports whether every key is held, by e's Inspect.
func allHeld(t *testing.T, e *postgres.Executor, keys []string) bool {
	for _, k := range keys {
		if !held(t, e, k) {
			return false
		}
	}
	return true
}

// warmExecutor makes one acquisition and release through e, so that its
// first check and a connection are done with.
func warmExecutor(t *testing.T, e *postgres.Executor) {
	t.Helper()
	l, err := e.Acquire(t.Context(), req(uniq(t, "warm:"), time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
}
