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

// long is an at-most-for no case outlives.
const long = time.Minute

// testNoSecondLock: while one process runs a job, every other attempt on
// it is skipped, in this process and in others; other jobs run.
func (s *suite) testNoSecondLock(t *testing.T) {
	ctx := t.Context()
	a, b := s.runner(t), s.runner(t)
	n := name(t)
	release := make(chan struct{})
	out, _ := holding(t, ctx, a, n, func(context.Context) error { <-release; return nil }, jobs.AtMostFor(long))
	want(t, "another process while held", b.Run(ctx, n, nop, jobs.AtMostFor(long)), jobs.Skipped)
	want(t, "the same process while held", a.Run(ctx, n, nop, jobs.AtMostFor(long)), jobs.Skipped)
	want(t, "another job", b.Run(ctx, n+"-other", nop), jobs.Ran)
	close(release)
	want(t, "the holder", <-out, jobs.Ran)
	testwait.For(t, s.o.Settle, "the job free after its holder returned", func() bool {
		return b.Run(ctx, n, nop).Outcome == jobs.Ran
	})
}

// testFreeAfterAtMostFor: a holder that runs past its at-most-for is told
// (its context cancelled with cause ErrLockLost) and loses the job, which
// another process then runs, not before the at-most-for has passed.
func (s *suite) testFreeAfterAtMostFor(t *testing.T) {
	ctx := t.Context()
	a, b := s.runner(t), s.runner(t)
	n, lease := name(t), s.o.Lease
	cause := make(chan error, 1)
	out, begin := holding(t, ctx, a, n, func(ctx context.Context) error {
		<-ctx.Done()
		cause <- context.Cause(ctx)
		return ctx.Err()
	}, jobs.AtMostFor(lease))
	testwait.For(t, 3*lease+s.o.Settle, "the job free after its at-most-for", func() bool {
		res := b.Run(ctx, n, nop, jobs.AtMostFor(long))
		if res.Outcome == jobs.Ran && time.Since(begin) < lease {
			t.Fatalf("the job ran elsewhere %v after it was taken with at-most-for %v", time.Since(begin), lease)
		}
		return res.Outcome == jobs.Ran
	})
	if err := <-cause; !errors.Is(err, lock4go.ErrLockLost) {
		t.Fatalf("the holder's context ended with cause %v, want ErrLockLost", err)
	}
	res := <-out
	want(t, "the holder past its at-most-for", res, jobs.Failed)
	if !errors.Is(res.Err, lock4go.ErrLockLost) {
		t.Fatalf("the holder's Result.Err = %v, want ErrLockLost", res.Err)
	}
}

// testRelockAfterUnlock: a job released is taken again at once, time after
// time (ShedLock's shouldBeAbleToLockRightAfterUnlock), and is skipped by
// others each time it is held.
func (s *suite) testRelockAfterUnlock(t *testing.T) {
	ctx := t.Context()
	a, b := s.runner(t), s.runner(t)
	n := name(t)
	for i := range 10 {
		res := a.Run(ctx, n, func(jctx context.Context) error {
			want(t, "another process while held", b.Run(ctx, n, nop), jobs.Skipped)
			want(t, "the job inside its own run", a.Run(jctx, n, nop), jobs.Skipped)
			return nil
		}, jobs.AtMostFor(long))
		want(t, "run "+string(rune('0'+i)), res, jobs.Ran)
	}
}
