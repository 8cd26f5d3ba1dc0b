package etcd

import (
	"context"
	"errors"
	"testing"
)

// newSlots returns an empty table.
func newSlots() *entryLocks { return &entryLocks{} }

// has reports whether tb holds a turn on k.
func has(tb *entryLocks, k entryKey) bool {
	st := tb.turns.State(k)
	return st.Taken || st.Waiting > 0
}

// A entryLock of a lease whose session is lost is never handed out, even when
// its token is free (the fast path), waiting or not.
func TestSlots_lock_goneFastPath(t *testing.T) {
	gone := make(chan struct{})
	close(gone)
	for _, wait := range []bool{false, true} {
		tb := newSlots()
		if _, err := tb.lock(t.Context(), entryKey{lease: 1, pfx: "k/"}, wait, gone); !errors.Is(err, errSessionLost) {
			t.Fatalf("lock(wait=%v) of a free entryLock after loss = %v, want errSessionLost", wait, err)
		}
		if n := tb.count(); n != 0 {
			t.Fatalf("%d entryLocks left after a refused lock, want 0", n)
		}
	}
}

// dropLease forgets the entryLocks of a lost lease, held or waited for, and only
// those; nobody gets one of them again, and a late unlock by a holder that
// never released until after the loss forgets nothing else.
func TestSlots_dropLease(t *testing.T) {
	tb := newSlots()
	gone := make(chan struct{})
	lost := entryKey{lease: 1, pfx: "k/"}
	other := entryKey{lease: 2, pfx: "k/"}
	unlockHeld, err := tb.lock(t.Context(), lost, false, gone)
	if err != nil {
		t.Fatal(err)
	}
	unlockOther, err := tb.lock(t.Context(), other, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	waiter := make(chan error, 1)
	go func() {
		_, err := tb.lock(context.Background(), lost, true, gone)
		waiter <- err
	}()

	close(gone) // the session is marked lost, then its entryLocks are dropped
	tb.dropLease(1)
	if err := <-waiter; !errors.Is(err, errSessionLost) {
		t.Fatalf("waiter after loss = %v, want errSessionLost", err)
	}
	if has(tb, lost) || tb.count() != 1 {
		t.Fatalf("%d entryLocks after dropLease, want only the other lease's", tb.count())
	}
	unlockHeld() // a Release after the loss
	if _, err := tb.lock(t.Context(), lost, false, gone); !errors.Is(err, errSessionLost) {
		t.Fatalf("lock after dropLease = %v, want errSessionLost", err)
	}
	if !has(tb, other) || tb.count() != 1 {
		t.Fatalf("%d entryLocks after a late unlock, want only the other lease's", tb.count())
	}
	unlockOther()
	if tb.count() != 0 {
		t.Fatalf("%d entryLocks at the end, want none", tb.count())
	}
}
