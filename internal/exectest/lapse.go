package exectest

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/internal/testkey"
)

// Lapse is what the claim-lapse cases need of a lease-table executor
// (PostgreSQL, MySQL): a claim lapses when its waiter does not take it
// within the claim window of the executor whose release wrote it. The
// cases give the first holder a short window (100ms), so that the claim
// it hands out lapses, and every other executor a long one (a minute), so
// that the claims they hand out last as long as a busy machine takes to
// run the case.
type Lapse struct {
	// New returns an executor whose releases give claims of window,
	// closed at the end of the test.
	New func(t *testing.T, window time.Duration) executor.Executor
	// AwaitLapse waits until the claim on key's row is past its window by
	// the server's clock.
	AwaitLapse func(t *testing.T, key string)
	// Rows, when set, counts the rows key has left once every lock of it
	// was released (0 is wanted: the backend deletes them at release).
	Rows func(t *testing.T, key string) int
}

// Lapsed checks what a claim its waiter does not take within the claim
// window (a stopped or throttled process) becomes: the next attempt, of
// anyone, hands the key on as the release would have (to the next waiter,
// not to whoever asked: a request that does not wait is refused); the
// stalled waiter keeps its place, passed over, and its next attempt gives
// it the next turn, ahead of the waiters queued behind it; tokens keep
// increasing.
func Lapsed(t *testing.T, x Lapse) {
	holder := x.New(t, 100*time.Millisecond)
	a, b, d, c := x.New(t, time.Minute), x.New(t, time.Minute), x.New(t, time.Minute), x.New(t, time.Minute)
	key := testkey.Unique(t, "lapse:")
	hl := mustTake(t, holder, req(key, false, false), "the holder's attempt")
	for _, e := range []executor.Executor{a, b, d} {
		mustQueue(t, e, req(key, true, false), "a waiter's attempt behind the holder")
	}
	release(t, hl)
	x.AwaitLapse(t, key)
	mustQueue(t, c, req(key, false, false), "an attempt that does not wait, on a lapsed claim")
	mustQueue(t, d, req(key, true, false), "the last waiter's attempt, after the lapse was handed on")
	lb := mustTake(t, b, req(key, true, false), "the next waiter's attempt on the claim handed on")
	// The stalled waiter runs again: its attempt finds b holding the key
	// and gives it the next turn, before d's.
	mustQueue(t, a, req(key, true, false), "the stalled waiter's attempt while b holds the key")
	release(t, lb)
	mustQueue(t, d, req(key, true, false), "the last waiter's attempt after b's release")
	la := mustTake(t, a, req(key, true, false), "the stalled waiter's attempt after b's release")
	release(t, la)
	ld := mustTake(t, d, req(key, true, false), "the last waiter's attempt after a's release")
	release(t, ld)
	if !(hl.Token() < lb.Token() && lb.Token() < la.Token() && la.Token() < ld.Token()) {
		t.Fatalf("tokens %d, %d, %d, %d do not increase", hl.Token(), lb.Token(), la.Token(), ld.Token())
	}
	if x.Rows != nil {
		if n := x.Rows(t, key); n != 0 {
			t.Fatalf("%d rows left for the key after every release, want 0", n)
		}
	}
}

// LapsedReaders checks a writer whose claim lapsed with two readers and a
// writer queued behind it: the readers have the key once (they were
// next), the stalled writer's next attempt gives it the next turn, ahead
// of the other writer and of a reader that comes later, and it has the
// key at the readers' release.
func LapsedReaders(t *testing.T, x Lapse) {
	holder := x.New(t, 100*time.Millisecond)
	w, r1, r2 := x.New(t, time.Minute), x.New(t, time.Minute), x.New(t, time.Minute)
	w2, late := x.New(t, time.Minute), x.New(t, time.Minute)
	key := testkey.Unique(t, "lapsereaders:")
	hl := mustTake(t, holder, req(key, false, false), "the holder's attempt")
	mustQueue(t, w, req(key, true, false), "the writer's attempt behind the holder")
	mustQueue(t, r1, req(key, true, true), "a reader's attempt behind the writer")
	mustQueue(t, r2, req(key, true, true), "a reader's attempt behind the writer")
	mustQueue(t, w2, req(key, true, false), "a second writer's attempt behind the readers")
	release(t, hl)
	x.AwaitLapse(t, key)
	l1 := mustTake(t, r1, req(key, true, true), "a reader's attempt after the writer's claim lapsed")
	l2 := mustTake(t, r2, req(key, true, true), "the other reader's attempt")
	mustQueue(t, w, req(key, true, false), "the stalled writer's attempt while the readers hold the key")
	mustQueue(t, late, req(key, true, true), "a later reader's attempt, behind the resumed writer")
	release(t, l1, l2)
	mustQueue(t, w2, req(key, true, false), "the second writer's attempt after the readers' release")
	lw := mustTake(t, w, req(key, true, false), "the resumed writer's attempt after the readers' release")
	mustQueue(t, late, req(key, true, true), "the later reader's attempt while the writer holds the key")
	release(t, lw)
	release(t, mustTake(t, w2, req(key, true, false), "the second writer's attempt after the writer's release"))
	release(t, mustTake(t, late, req(key, true, true), "the later reader's attempt after the second writer's release"))
}

// LapsedTaken checks that a waiter whose claim lapsed, but that nobody
// handed on yet, still takes it, with a token above the releaser's.
func LapsedTaken(t *testing.T, x Lapse) {
	holder, a, b := x.New(t, 100*time.Millisecond), x.New(t, time.Minute), x.New(t, time.Minute)
	key := testkey.Unique(t, "lapsetaken:")
	hl := mustTake(t, holder, req(key, false, false), "the holder's attempt")
	mustQueue(t, a, req(key, true, false), "a waiter's attempt behind the holder")
	mustQueue(t, b, req(key, true, false), "a waiter's attempt behind the first")
	release(t, hl)
	x.AwaitLapse(t, key)
	la := mustTake(t, a, req(key, true, false), "the stalled waiter's attempt on its lapsed claim")
	if la.Token() <= hl.Token() {
		t.Fatalf("token %d after %d: not increasing", la.Token(), hl.Token())
	}
	release(t, la)
	release(t, mustTake(t, b, req(key, true, false), "the next waiter's attempt after the release"))
}

// req returns an attempt on key with a fresh owner and a one-minute
// lease: of a waiting caller when wait is set, for a read lock when
// shared is.
func req(key string, wait, shared bool) executor.Request {
	return executor.Request{Key: key, Owner: testkey.Owner(), TTL: time.Minute, Wait: wait, Shared: shared}
}

// mustTake makes the attempt r of e, which must take the key.
func mustTake(t *testing.T, e executor.Executor, r executor.Request, what string) executor.Lease {
	t.Helper()
	l, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatalf("%s = %v, want the key", what, err)
	}
	return l
}

// mustQueue makes the attempt r of e, which must find the key busy (and
// queue e, for a waiting attempt).
func mustQueue(t *testing.T, e executor.Executor, r executor.Request, what string) {
	t.Helper()
	l, err := e.Acquire(t.Context(), r)
	if err == nil {
		_ = l.Release(t.Context())
		t.Fatalf("%s took the key, want it busy", what)
	}
	if !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("%s = %v, want ErrNotAcquired", what, err)
	}
}

// release releases ls, which must be held.
func release(t *testing.T, ls ...executor.Lease) {
	t.Helper()
	for _, l := range ls {
		if err := l.Release(t.Context()); err != nil {
			t.Fatalf("Release = %v", err)
		}
	}
}
