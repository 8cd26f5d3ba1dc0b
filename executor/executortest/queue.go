package executortest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testwait"
)

// waiting waits until key has at least n waiters by inspector's count, or,
// for an executor that cannot count them, lets the waiters reach their wait
// (any delay only adds to their wait, never to what is measured).
func waiting(t *testing.T, inspector executor.Executor, key string, n int) {
	t.Helper()
	if in, ok := inspector.(executor.Inspector); ok {
		var h executor.Holder
		var err error
		if !testwait.Until(10*time.Second, func() bool {
			h, err = in.Inspect(t.Context(), key)
			return err == nil && (h.Waiters < 0 || h.Waiters >= n)
		}) {
			t.Fatalf("Inspect(%q) never counted %d waiters: %+v, %v", key, n, h, err)
		}
		if h.Waiters >= 0 {
			return
		}
	}
	time.Sleep(100 * time.Millisecond)
}

// testFIFO checks that waiters of different executors (processes) get a
// busy key in the order they started waiting: each release hands it to the
// longest waiter, not to whoever retries first. On an executor with claims
// ([Options.ClaimWindow]) a waiter whose attempt after its wake came too
// late for its claim may be passed over while it is late (lateFor); that
// it has the next turn once it runs again is for the executor's own tests
// (PostgreSQL's TestClaim_lapsed).
func (s *suite) testFIFO(t *testing.T) {
	if s.o.Unordered {
		t.Skip("the executor wakes every waiter (Options.Unordered)")
	}
	a := s.f(t)
	k := s.key(t)
	holder := mustAcquire(t, a, s.req(k, 0, false))
	const waiters = 3
	turns := make(chan fifoTurn, waiters)
	errc := make(chan error, waiters)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	logs := make([]*attemptLog, waiters)
	for i := range waiters {
		e, log := s.f(t), &attemptLog{}
		logs[i] = log
		go func() {
			l, err := acquireLogged(ctx, e, s.req(k, 0, true), log)
			if err != nil {
				errc <- err
				return
			}
			tn := fifoTurn{waiter: i, granted: time.Now(), releasing: time.Now()}
			if err := l.Release(context.WithoutCancel(ctx)); err != nil {
				errc <- err
			}
			turns <- tn
		}()
		waiting(t, a, k, i+1)
	}
	releasing := time.Now()
	if err := holder.Release(t.Context()); err != nil {
		t.Fatalf("Release = %v", err)
	}
	var got []fifoTurn
	for range waiters {
		select {
		case tn := <-turns:
			got = append(got, tn)
		case err := <-errc:
			t.Fatalf("waiter failed: %v", err)
		case <-ctx.Done():
			t.Fatalf("after %d turns: no waiter got the key", len(got))
		}
	}
	slices.SortFunc(got, func(x, y fifoTurn) int { return x.granted.Compare(y.granted) })
	s.checkOrder(t, got, releasing, logs)
}

// fifoTurn is one waiter's turn: when it had the key and began to release
// it.
type fifoTurn struct {
	waiter             int
	granted, releasing time.Time
}

// checkOrder checks the turns got, in the order they came, against the
// waiters' arrival order (their indexes); the first turn's release began
// at releasing, and logs holds each waiter's attempts. A waiter that
// arrived before a turn's holder and had not had its turn was passed over:
// lateFor decides whether it may be.
func (s *suite) checkOrder(t *testing.T, got []fifoTurn, releasing time.Time, logs []*attemptLog) {
	t.Helper()
	served := map[int]bool{}
	stalled := make([]time.Time, len(logs)) // until when a waiter passed over was late
	for turn, tn := range got {
		for w := range tn.waiter {
			if !served[w] {
				stalled[w] = s.lateFor(t, fmt.Sprintf("waiter %d (turn %d)", w, turn), releasing, stalled[w], logs[w])
			}
		}
		served[tn.waiter] = true
		releasing = tn.releasing
	}
}

// testDepartedWaiter checks that a waiter that stopped waiting without a
// word (its context ended, or its process died right after joining a queue)
// does not hold up the next one: the release reaches the live waiter within
// Settle, not after the departed one's lease or session.
func (s *suite) testDepartedWaiter(t *testing.T) {
	a, departed, live := s.f(t), s.f(t), s.f(t)
	k := s.key(t)
	// The departed executor's first round trip (a new connection, on a
	// busy machine) must not be what its short wait ends in.
	if err := mustAcquire(t, departed, s.req(s.key(t)+"-warm", 0, false)).Release(t.Context()); err != nil {
		t.Fatalf("Release = %v", err)
	}
	holder := mustAcquire(t, a, s.req(k, 0, false))
	dctx, dcancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	l, err := departed.Acquire(dctx, s.req(k, 0, true))
	dcancel()
	if err == nil {
		_ = l.Release(t.Context())
		t.Fatal("a waiting Acquire succeeded while the key is held")
	}
	if !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("waiting Acquire = %v, want ErrNotAcquired", err)
	}
	got := make(chan error, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	go func() {
		l, err := acquireBlocking(ctx, live, s.req(k, 0, true))
		if err == nil {
			err = l.Release(context.WithoutCancel(ctx))
		}
		got <- err
	}()
	waiting(t, a, k, 1)
	released := time.Now()
	if err := holder.Release(t.Context()); err != nil {
		t.Fatalf("Release = %v", err)
	}
	if err := <-got; err != nil {
		t.Fatalf("live waiter: %v", err)
	}
	took := time.Since(released)
	t.Logf("live waiter got the key %v after the release, past a departed waiter", took)
	if took > s.o.Settle {
		t.Fatalf("live waiter got the key %v after the release, want within %v", took, s.o.Settle)
	}
}
