package gocronlock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/internal/testwait"
	"github.com/lock4go/lock4go/jobs"
	"github.com/lock4go/lock4go/jobs/gocronlock"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fleet returns n Runners over one memory executor, as n processes over
// one server.
func fleet(t *testing.T, n int) []*jobs.Runner {
	t.Helper()
	e := memory.New(memory.Options{})
	t.Cleanup(func() { _ = e.Close() })
	out := make([]*jobs.Runner, n)
	for i := range out {
		tpl, err := lock4go.New(lock4go.Config{}, e)
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = jobs.New(tpl, jobs.Config{}); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestLocker_skipsAndKeepsAtLeastFor(t *testing.T) {
	ctx := t.Context()
	rs := fleet(t, 2)
	a := gocronlock.NewLocker(rs[0], jobs.AtMostFor(time.Minute), jobs.AtLeastFor(300*time.Millisecond))
	b := gocronlock.NewLocker(rs[1], jobs.AtMostFor(time.Minute))
	la, err := a.Lock(ctx, "job")
	if err != nil {
		t.Fatal(err)
	}
	jctx, cancel := a.Context(ctx, "job")
	if l := lock4go.LockFrom(jctx, "job"); l == nil || l.Token() <= 0 {
		t.Fatalf("the run's context carries no lock with a token: %v", l)
	}
	cancel()
	if _, err := b.Lock(ctx, "job"); !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("second Lock = %v, want ErrNotAcquired", err)
	}
	unlocked := time.Now()
	if err := la.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Lock(ctx, "job"); !errors.Is(err, lock4go.ErrNotAcquired) && time.Since(unlocked) < 200*time.Millisecond {
		t.Fatalf("Lock right after Unlock, before the at-least-for end = %v, want ErrNotAcquired", err)
	}
	testwait.For(t, 2*time.Second, "the job free after its at-least-for end", func() bool {
		lb, err := b.Lock(ctx, "job")
		if err == nil {
			_ = lb.Unlock(ctx)
		}
		return err == nil
	})
	jctx, cancel = a.Context(ctx, "job")
	defer cancel()
	if !errors.Is(context.Cause(jctx), lock4go.ErrLockNotHeld) {
		t.Fatalf("Context outside a run: cause %v, want ErrLockNotHeld", context.Cause(jctx))
	}
}

func TestElector_oneLeaderThenTheOther(t *testing.T) {
	rs := fleet(t, 2)
	a := gocronlock.NewElector(t.Context(), rs[0].Template(), "leader")
	testwait.For(t, 2*time.Second, "a leads", func() bool { return a.IsLeader(t.Context()) == nil })
	b := gocronlock.NewElector(t.Context(), rs[1].Template(), "leader")
	defer b.Close()
	if err := b.IsLeader(t.Context()); !errors.Is(err, gocronlock.ErrNotLeader) {
		t.Fatalf("b.IsLeader while a leads = %v, want ErrNotLeader", err)
	}
	actx, acancel := a.Context(t.Context())
	bctx, bcancel := b.Context(t.Context())
	if actx.Err() != nil || !errors.Is(context.Cause(bctx), gocronlock.ErrNotLeader) {
		t.Fatalf("Context: the leader's %v, the other's cause %v; want live and ErrNotLeader", actx.Err(), context.Cause(bctx))
	}
	acancel()
	bcancel()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.IsLeader(t.Context()); err == nil {
		t.Fatal("a still leads after Close")
	}
	testwait.For(t, 2*time.Second, "b leads after a stepped down", func() bool { return b.IsLeader(t.Context()) == nil })
}
