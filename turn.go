package lock4go

import (
	"context"
	"fmt"

	"github.com/lock4go/lock4go/executor"
)

// The acquisition's turn in the local queue (turns.Turns, per executor and
// key), so that the backend sees one waiter per process and key: a caller
// takes the key's next place, in arrival order, then its turn, which the
// holder gives up when its lock ends. The holder gives the next place on
// once the backend granted it the lock (handOut). On an executor with
// Capabilities.QueueNext (ZooKeeper) the caller in the next place does not
// wait for the turn: it attempts at once, its attempt waits in the
// backend's queue behind the holder's entry, and once granted it takes the
// turn, which the holder's release frees right after its delete. A
// hand-off between two callers of the process then costs the release and
// the waiter's wake-up, not a release and a fresh acquisition.

// takeTurn takes the key's next place and turn, waiting for them until the
// acquire deadline unless the call does not wait. On an executor that
// queues the next caller it may return with the next place only, while
// another caller holds the turn: the acquisition then waits ahead of its
// turn (awaitTurn).
func (a *acquisition) takeTurn() error {
	turn, next, held := a.t.turns.JoinNext(turnKey{a.r.name, a.key})
	a.turn, a.next, a.held = turn, next, held
	if held {
		return nil
	}
	if a.try {
		return &queueError{ahead: a.dropTurn(), try: true}
	}
	a.begin()
	ctx := a.b.bound()
	if !a.next {
		if turn.WaitNext(ctx) != nil {
			return &queueError{ahead: a.dropTurn(), cause: context.Cause(ctx)}
		}
		a.next = true
	}
	switch {
	case turn.TryTake():
		a.held = true
	case a.r.caps.QueueNext && a.r.wait == executor.WaitInAcquire:
		// Attempt now, behind the holder in the backend's queue.
	case turn.Wait(ctx, nil) == nil:
		a.held = true
	default:
		return &queueError{ahead: a.dropTurn(), cause: context.Cause(ctx)}
	}
	return nil
}

// awaitTurn takes the turn after the backend granted the lock to a caller
// that waited ahead of it: the holder's lock is gone from the backend, and
// its hold ends with its release or, if the lock was taken from it, once
// its loss is noticed. The wait is bounded as an attempt is.
func (a *acquisition) awaitTurn() error {
	ctx := a.b.attemptCtx()
	if err := a.turn.Wait(ctx, nil); err != nil {
		return fmt.Errorf("%w: granted, but this process's previous holder kept the key's turn: %w", ErrNotAcquired, context.Cause(ctx))
	}
	a.held = true
	return nil
}

// dropTurn gives up what the acquisition took of the key's turn: the next
// place, and the turn or its place among the turn's callers. It returns
// how many other callers hold or wait for the turn.
func (a *acquisition) dropTurn() (others int) {
	turn := a.turn
	if turn == nil {
		return 0
	}
	a.turn = nil
	if a.next {
		turn.PassNext()
		a.next = false
	}
	if a.held {
		a.held = false
		a.t.turns.Release(turn)
		return 0
	}
	return a.t.turns.Leave(turn)
}
