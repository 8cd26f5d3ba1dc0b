package redlock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
)

// maxGrace bounds how long a renewal or release waits for the masters
// still to answer once its outcome is decided (see gather).
const maxGrace = 5 * time.Millisecond

// answer is one master's answer to a renewal or release of one lease.
type answer struct {
	pos int // the master's position in the lease's list
	err error
}

// gather receives the n answers sent on out by one renewal or release sent
// at start, until all came or the outcome is decided (a majority succeeded,
// or can no longer succeed) and a grace has passed: as long as the decided
// part took, at most maxGrace. Masters answering within the grace are
// waited for, so that in normal operation every master is done when the
// call returns; a master that is down or blackholed costs the grace, not
// its timeout. It returns the answers in order of position, nil for those
// still in flight, and how many are in flight; late answers stay on out.
func gather(out <-chan answer, n, quorum int, start time.Time) (errs []error, pending []bool, left int) {
	errs, pending = make([]error, n), make([]bool, n)
	for i := range pending {
		pending[i] = true
	}
	ok, got := 0, 0
	left = collect(out, n, start, func(a answer) {
		errs[a.pos], pending[a.pos] = a.err, false
		got++
		if a.err == nil {
			ok++
		}
	}, func() bool { return ok >= quorum || ok+n-got < quorum })
	return errs, pending, left
}

// collect hands the values sent on out to take until n came, or decided
// reports the outcome known and a grace has passed: as long as the
// decided part took since start, at most maxGrace. It returns how many
// values are still to come.
func collect[T any](out <-chan T, n int, start time.Time, take func(T), decided func() bool) (left int) {
	var timer <-chan time.Time
	for left = n; left > 0; left-- {
		if timer == nil && decided() {
			t := time.NewTimer(min(time.Since(start), maxGrace))
			defer t.Stop()
			timer = t.C
		}
		select {
		case v := <-out:
			take(v)
		case <-timer:
			return left
		}
	}
	return 0
}

// fanOut calls call on each of ls (one master's lease each) in the
// executor's workers, under ctx's deadline but not its cancellation, and
// returns their answers once gather does; a master still to answer counts
// as errInFlight, and its answer goes to onLate when it comes.
func (e *Executor) fanOut(ctx context.Context, ls []executor.Lease, call func(context.Context, executor.Lease) error, onLate func(answer)) []error {
	start := time.Now()
	dctx, cancel := e.detach(ctx, 0)
	out := make(chan answer, len(ls))
	for j, nl := range ls {
		e.work.run(func() { out <- answer{j, call(dctx, nl)} })
	}
	errs, pending, left := gather(out, len(ls), e.quorum, start)
	late(e, out, left, cancel, onLate)
	for j, p := range pending {
		if p {
			errs[j] = errInFlight
		}
	}
	return errs
}

// errInFlight stands for the answer of a master still to answer when a
// renewal or release returned.
var errInFlight = fmt.Errorf("no answer yet: %w", executor.ErrBackend)

// late hands the left values still to come on out to f in e's
// background, then calls cancel.
func late[T any](e *Executor, out <-chan T, left int, cancel context.CancelFunc, f func(T)) {
	if left == 0 {
		cancel()
		return
	}
	drain := func() {
		defer cancel()
		for range left {
			f(<-out)
		}
	}
	if !e.bg.Go(drain) {
		drain()
	}
}

// notHeld reports whether err says the master no longer holds the lease.
func notHeld(err error) bool { return errors.Is(err, executor.ErrLockNotHeld) }
