package jobstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/internal/testwait"
	"github.com/lock4go/lock4go/jobs"
)

// testAtLeastFor: a job that returns at once stays taken until its
// at-least-for end, and is free after it without a further request.
func (s *suite) testAtLeastFor(t *testing.T) {
	ctx := t.Context()
	a, b := s.runner(t), s.runner(t)
	n, alf := name(t), 2*s.o.Lease
	res := a.Run(ctx, n, nop, jobs.AtMostFor(4*alf), jobs.AtLeastFor(alf))
	want(t, "the first run", res, jobs.Ran)
	if got := res.HeldUntil.Sub(res.Started); got != alf {
		t.Fatalf("HeldUntil - Started = %v, want the at-least-for %v", got, alf)
	}
	again := b.Run(ctx, n, nop, jobs.AtMostFor(4*alf))
	if time.Now().Before(res.HeldUntil) {
		want(t, "another process before the at-least-for end", again, jobs.Skipped)
	}
	testwait.For(t, alf+s.o.Settle, "the job free after its at-least-for end", func() bool {
		r := b.Run(ctx, n, nop, jobs.AtMostFor(4*alf))
		if r.Outcome == jobs.Ran && time.Now().Before(res.HeldUntil) {
			t.Fatalf("the job ran again %v before its at-least-for end", time.Until(res.HeldUntil))
		}
		return r.Outcome == jobs.Ran
	})
}

// testReleaseAfterExpiry: a holder that returns after its at-most-for
// passed and another process took the job touches nothing of the new
// holder's lock (ShedLock: no extend after expiry); it learns that its
// run lost the lock.
func (s *suite) testReleaseAfterExpiry(t *testing.T) {
	ctx := t.Context()
	a, b, c := s.runner(t), s.runner(t), s.runner(t)
	n, lease := name(t), s.o.Lease
	releaseA, releaseB := make(chan struct{}), make(chan struct{})
	outA, _ := holding(t, ctx, a, n, func(context.Context) error { <-releaseA; return nil },
		jobs.AtMostFor(lease), jobs.AtLeastFor(lease))
	var outB <-chan jobs.Result
	testwait.For(t, 3*lease+s.o.Settle, "another process taking the expired job", func() bool {
		in, out := started(ctx, b, n, func(context.Context) error { <-releaseB; return nil }, jobs.AtMostFor(long))
		select {
		case <-in:
			outB = out
			return true
		case res := <-out:
			return res.Outcome == jobs.Ran // not while it blocks: never
		}
	})
	close(releaseA)
	res := <-outA
	want(t, "the expired holder", res, jobs.Failed)
	if !errors.Is(res.Err, lock4go.ErrLockLost) {
		t.Fatalf("the expired holder's Result.Err = %v, want ErrLockLost", res.Err)
	}
	want(t, "a third process while the new holder runs", c.Run(ctx, n, nop), jobs.Skipped)
	close(releaseB)
	want(t, "the new holder", <-outB, jobs.Ran)
}

// testKeepAlive: a job with KeepAlive runs past its at-most-for, its
// lease renewed, and is skipped elsewhere meanwhile. The at-most-for is
// at least 3s: the case is about renewal, not about how short a lease
// survives a busy machine (under make test-under-load a 1s lease on
// PostgreSQL ran out when its renewals went unanswered).
func (s *suite) testKeepAlive(t *testing.T) {
	ctx := t.Context()
	a, b := s.runner(t), s.runner(t)
	n, lease := name(t), max(s.o.Lease, 3*time.Second)
	res := a.Run(ctx, n, func(ctx context.Context) error {
		end := time.Now().Add(2 * lease)
		for time.Now().Before(end) {
			want(t, "another process while the job runs", b.Run(ctx, n, nop), jobs.Skipped)
			select {
			case <-ctx.Done():
				return context.Cause(ctx)
			case <-time.After(lease / 4):
			}
		}
		return nil
	}, jobs.AtMostFor(lease), jobs.KeepAlive())
	want(t, "a job renewed past its at-most-for", res, jobs.Ran)
}
