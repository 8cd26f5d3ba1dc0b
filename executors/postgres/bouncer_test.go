package postgres_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/postgres"
	"github.com/lock4go/lock4go/internal/testlog"
	"github.com/lock4go/lock4go/internal/testwait"
)

// TestListen_missedProbeHandoff: through PgBouncer in transaction mode with
// no ListenDSN, notifications never arrive; once the probe has been missed
// (the warning), the executor's waiters poll the database at their retry
// interval (100 ms), so a hand-off takes about that. It took 0.6-1 s (p50
// 787 ms) when the missed probe left the listener counted as listening: the
// waits answered "busy" locally and asked the database once a second.
func TestListen_missedProbeHandoff(t *testing.T) {
	const rounds = 5
	log, warned := testlog.Signal(t, "did not reach the LISTEN connection")
	waiting := newExecutor(t, newPool(t, pgBouncer(t).Addr()), postgres.Options{Logger: log})
	cfg := lock4go.Config{RetryInterval: 100 * time.Millisecond, AcquireTimeout: 10 * time.Second, Logger: testLogger(t)}
	tplW, err := lock4go.New(cfg, waiting)
	if err != nil {
		t.Fatal(err)
	}
	tplH, err := lock4go.New(cfg, direct(t))
	if err != nil {
		t.Fatal(err)
	}
	key := uniq(t, "bouncer:")
	_, stop := waiting.WatchRelease(t.Context(), key) // starts the listener and its probe
	select {
	case <-warned:
	case <-time.After(10 * time.Second):
		t.Fatal("no warning that notifications do not arrive")
	}
	stop()
	var handoffs []time.Duration
	for range rounds {
		handoffs = append(handoffs, handoff(t, tplH, tplW, key))
	}
	slices.Sort(handoffs)
	t.Logf("hand-offs through PgBouncer without ListenDSN: %v", handoffs)
	if p50 := handoffs[rounds/2]; p50 > 350*time.Millisecond {
		t.Errorf("hand-off p50 %v, want about the retry interval (100 ms), not the quiet poll (1 s)", p50)
	}
}

// handoff has holder take key, waiter ask for it, and holder release it a
// while after waiter queued; it returns how long waiter took to get it from
// the release.
func handoff(t *testing.T, holder, waiter *lock4go.Template, key string) time.Duration {
	t.Helper()
	h, err := holder.Lock(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan time.Time, 1)
	go func() {
		l, err := waiter.Lock(t.Context(), key)
		got <- time.Now()
		if err != nil {
			t.Errorf("the waiter's Lock = %v", err)
			return
		}
		_ = l.Release(t.Context())
	}()
	testwait.For(t, 10*time.Second, "the waiter queued", func() bool {
		i, err := holder.Inspect(t.Context(), key)
		return err == nil && i.Waiters == 1
	})
	// The holder keeps the key a while after the waiter queued, as a real
	// one does: past the waiter's first polls.
	time.Sleep(300*time.Millisecond + rand.N(200*time.Millisecond))
	released := time.Now()
	if err := h.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	return (<-got).Sub(released)
}
