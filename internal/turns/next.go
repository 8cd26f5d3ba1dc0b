package turns

import "context"

// A turn's next place: callers that take a key's turn in two steps first
// take its next place, in arrival order, then the turn. The caller in the
// next place while another holds the turn may already do what comes before
// holding it (the Template: wait in the backend's queue behind the holder,
// so that a hand-off inside the process costs one read instead of a fresh
// acquisition), and nobody can take the turn before it. A caller gives the
// next place on ([Turn.PassNext]) once it holds the turn and what it waited
// for, or when it gives up. Callers of a key take the turn either all in
// two steps or all with [Turns.Join].

// JoinNext adds the caller to k's turn and takes its next place if it is
// free, and then the turn if that is free too: held reports both. A caller
// with next but not held holds the next place while another holds the
// turn; one without next waits for it ([Turn.WaitNext]) or leaves.
func (t *Turns[K, H]) JoinNext(k K) (turn *Turn[K, H], next, held bool) {
	turn = t.join(k)
	select {
	case turn.place <- struct{}{}:
	default:
		return turn, false, false
	}
	return turn, true, turn.TryTake()
}

// WaitNext waits until the caller, who joined turn, holds its next place,
// or ctx ends (its error); the caller then still counts in the turn and
// must leave it.
func (turn *Turn[K, H]) WaitNext(ctx context.Context) error {
	select {
	case turn.place <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TryTake takes the turn if it is free, for the caller in its next place,
// and reports whether it did.
func (turn *Turn[K, H]) TryTake() bool {
	select {
	case turn.token <- struct{}{}:
		return true
	default:
		return false
	}
}

// PassNext gives the next place, which the caller holds, to the next
// caller waiting for it.
func (turn *Turn[K, H]) PassNext() { <-turn.place }
