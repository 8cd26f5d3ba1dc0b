package turns

import (
	"fmt"
	"testing"
)

// A key taken and given back again and again reuses its idle turn: no
// allocation and no write to the map; an idle turn is listed nowhere, and
// beyond maxIdleTurns the oldest idle turns leave the map.
func TestTurns_idle(t *testing.T) {
	var turns Turns[string, int]
	take := func(k string) *Turn[string, int] {
		turn, held := turns.Join(k)
		if !held {
			t.Fatalf("%s: turn not free", k)
		}
		return turn
	}
	turns.Release(take("k"))
	if n := testing.AllocsPerRun(100, func() { turns.Release(take("k")) }); n != 0 {
		t.Fatalf("%v allocations per turn taken and given back", n)
	}
	if st := turns.States(); len(st) != 0 {
		t.Fatalf("States with nobody on any turn = %v", st)
	}
	if st := turns.State("k"); st.Taken || st.Waiting != 0 {
		t.Fatalf("State of an idle turn = %+v", st)
	}
	held := take("k")
	if st := turns.States(); len(st) != 1 || !st[0].Taken {
		t.Fatalf("States with k taken = %v", st)
	}
	turns.Release(held)
	for i := range 2 * maxIdleTurns {
		turns.Release(take(fmt.Sprint(i)))
	}
	turns.mu.Lock()
	inMap, idle := len(turns.m), turns.idle.Len()
	turns.mu.Unlock()
	if inMap != maxIdleTurns || idle != maxIdleTurns {
		t.Fatalf("%d turns in the map, %d idle, want %d of each", inMap, idle, maxIdleTurns)
	}
	// A forgotten idle turn leaves the list with the map.
	turns.Forget(func(k string) bool { return k == fmt.Sprint(2*maxIdleTurns-1) })
	turns.mu.Lock()
	inMap, idle = len(turns.m), turns.idle.Len()
	turns.mu.Unlock()
	if inMap != maxIdleTurns-1 || idle != maxIdleTurns-1 {
		t.Fatalf("after Forget: %d turns in the map, %d idle", inMap, idle)
	}
}
