package turns

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// Turns makes the callers of one process take turns per key: one caller
// holds a key's turn at a time, and the others wait for it, served in
// arrival order (a channel's send queue). The Template's local queue takes
// turns per executor and key, so that a backend sees one waiter per
// process; the etcd executor per queue entry, which acquisitions of one
// process under one lease would otherwise share. A key's turn exists while
// a caller holds or waits for it, and stays in the table a while once idle,
// so that a key taken again soon finds its turn without a write to the
// table's map. The zero value is ready to use. It is safe for concurrent
// use.
type Turns[K comparable, H any] struct {
	mu sync.Mutex
	m  map[K]*Turn[K, H]
	// idle lists the turns of m that nobody holds or waits for, oldest
	// first, at most maxIdleTurns; older ones leave m for free.
	idle IdleList[Turn[K, H], *Turn[K, H]]
	free []*Turn[K, H] // turns out of m kept for reuse, at most maxIdleTurns
}

// maxIdleTurns bounds the idle turns a [Turns] keeps in its map, and
// those it keeps for reuse besides.
const maxIdleTurns = 64

// Turn is one key's turn: a token channel of capacity one, and a count of
// the callers that hold or wait for it.
type Turn[K comparable, H any] struct {
	key   K
	token chan struct{}
	place chan struct{}        // the next place (next.go)
	refs  int                  // guarded by the table's mutex, as the fields below
	gone  bool                 // forgotten by [Turns.Forget]
	link  IdleLink[Turn[K, H]] // among the idle turns
	// Hold is the hold taken by the caller whose turn it is, for whoever
	// lists the turns (nil when nothing is recorded); that caller sets and
	// clears it.
	Hold atomic.Pointer[H]
}

// Link implements [Idler]: the turn's place among the idle turns.
func (turn *Turn[K, H]) Link() *IdleLink[Turn[K, H]] { return &turn.link }

// ErrGone is the error of [Turn.Wait] when its gone channel closed.
var ErrGone = errors.New("the turn's key is gone")

// Join adds the caller to k's turn and takes it if it is free; held
// reports whether it did. A caller that did not take it either waits for
// it ([Turn.Wait]) or leaves it ([Turns.Leave]); one that holds it gives
// it up with [Turns.Release].
func (t *Turns[K, H]) Join(k K) (turn *Turn[K, H], held bool) {
	turn = t.join(k)
	select {
	case turn.token <- struct{}{}:
		return turn, true
	default:
		return turn, false
	}
}

// join counts the caller in k's turn.
func (t *Turns[K, H]) join(k K) *Turn[K, H] {
	t.mu.Lock()
	if t.m == nil {
		t.m = map[K]*Turn[K, H]{}
	}
	turn := t.m[k]
	switch {
	case turn == nil:
		if n := len(t.free); n > 0 {
			turn, t.free = t.free[n-1], t.free[:n-1]
		} else {
			turn = &Turn[K, H]{token: make(chan struct{}, 1), place: make(chan struct{}, 1)}
		}
		turn.key, turn.gone = k, false
		t.m[k] = turn
	case turn.refs == 0:
		t.idle.Remove(turn)
	}
	turn.refs++
	t.mu.Unlock()
	return turn
}

// Wait waits until the caller, who joined turn, holds it. It returns ctx's
// error when ctx ends first, and [ErrGone] when gone (nil: never) is
// closed first; the caller then still counts in the turn and must leave
// it.
func (turn *Turn[K, H]) Wait(ctx context.Context, gone <-chan struct{}) error {
	select {
	case turn.token <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-gone:
		return ErrGone
	}
}

// Leave takes a caller who joined turn but does not hold it out of it, and
// returns how many other callers hold or wait for it.
func (t *Turns[K, H]) Leave(turn *Turn[K, H]) (others int) {
	t.mu.Lock()
	others = turn.refs - 1
	t.dropLocked(turn)
	t.mu.Unlock()
	return others
}

// Release gives turn, which the caller holds, to the next caller. The token
// is taken back under the table's mutex, with the count, so that the next
// caller never counts its predecessor as one behind it.
func (t *Turns[K, H]) Release(turn *Turn[K, H]) {
	t.mu.Lock()
	<-turn.token
	t.dropLocked(turn)
	t.mu.Unlock()
}

// dropLocked counts one caller out of turn. The last caller leaves it in
// the map as idle, unless [Turns.Forget] took it out; the oldest idle turn
// leaves the map when there are too many. The caller holds t.mu.
func (t *Turns[K, H]) dropLocked(turn *Turn[K, H]) {
	turn.refs--
	if turn.refs > 0 || turn.gone {
		return
	}
	t.idle.Push(turn)
	if t.idle.Len() <= maxIdleTurns {
		return
	}
	old := t.idle.Oldest()
	t.idle.Remove(old)
	delete(t.m, old.key)
	if len(t.free) < maxIdleTurns {
		var zero K
		old.key = zero
		t.free = append(t.free, old)
	}
}

// Behind reports whether other callers wait for turn behind its holder.
func (t *Turns[K, H]) Behind(turn *Turn[K, H]) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return turn.refs > 1
}

// Forget drops the turns of the keys for which gone reports true: callers
// that join such a key later get a new turn, and the forgotten turns end
// with their last caller. The etcd executor forgets the entries of a lease
// that ended, which no acquisition may take again.
func (t *Turns[K, H]) Forget(gone func(K) bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, turn := range t.m {
		if gone(k) {
			delete(t.m, k)
			turn.gone = true
			if turn.refs == 0 {
				t.idle.Remove(turn)
			}
		}
	}
}

// TurnState is a moment's view of one key's turn: the hold of the caller
// whose turn it is (nil when none is recorded), how many callers wait for
// it, and whether a caller has it.
type TurnState[K comparable, H any] struct {
	Key     K
	Hold    *H
	Waiting int
	Taken   bool
}

// State returns the view of k's turn; the zero TurnState when nobody holds
// or waits for it.
func (t *Turns[K, H]) State(k K) TurnState[K, H] {
	t.mu.Lock()
	defer t.mu.Unlock()
	if turn := t.m[k]; turn != nil && turn.refs > 0 {
		return turn.stateLocked()
	}
	return TurnState[K, H]{Key: k}
}

// States returns the view of every turn, in no particular order. Counts
// read while callers come and go are a moment's approximation.
func (t *Turns[K, H]) States() []TurnState[K, H] {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]TurnState[K, H], 0, len(t.m)-t.idle.Len())
	for _, turn := range t.m {
		if turn.refs > 0 {
			out = append(out, turn.stateLocked())
		}
	}
	return out
}

func (turn *Turn[K, H]) stateLocked() TurnState[K, H] {
	taken := len(turn.token) > 0
	waiting := turn.refs
	if taken {
		waiting--
	}
	return TurnState[K, H]{Key: turn.key, Hold: turn.Hold.Load(), Waiting: waiting, Taken: taken}
}
