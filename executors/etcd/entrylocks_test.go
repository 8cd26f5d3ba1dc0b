package etcd

import (
	"context"
	"errors"
	"testing"
)

// newSlots returns an empty table.
func newSlots() *entryLocks { return &entryLocks{m: map[entryKey]*entryLock{}} }

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
		if n := len(tb.m); n != 0 {
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
	if _, ok := tb.m[lost]; ok || len(tb.m) != 1 {
		t.Fatalf("entryLocks after dropLease = %v, want only the other lease's", tb.m)
	}
	unlockHeld() // a Release after the loss
	if _, err := tb.lock(t.Context(), lost, false, gone); !errors.Is(err, errSessionLost) {
		t.Fatalf("lock after dropLease = %v, want errSessionLost", err)
	}
	if _, ok := tb.m[other]; !ok || len(tb.m) != 1 {
		t.Fatalf("entryLocks after a late unlock = %v, want only the other lease's", tb.m)
	}
	unlockOther()
	if len(tb.m) != 0 {
		t.Fatalf("entryLocks at the end = %v, want none", tb.m)
	}
}
