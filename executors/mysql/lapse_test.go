package mysql_test

import (
	"errors"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/mysql"
	"github.com/lock4go/lock4go/internal/testwait"
)

// The cases of executors/postgres's lapse_test.go, on MySQL: the same
// protocol (serve keeps a served entry, lock_turn hands a lapsed claim on
// and resumes the stalled waiter's entry).

// A claim lapses when its waiter does not take it within the claim window
// of the executor whose release (or hand-off) wrote it. The tests give the
// first holder a short window, so that the claim it hands out lapses, and
// every other executor a long one, so that the claims they hand out last
// for as long as a busy machine takes to run the test.
var (
	shortClaim = mysql.Options{ClaimWindow: 100 * time.Millisecond}
	longClaim  = mysql.Options{ClaimWindow: time.Minute}
)

// TestClaim_lapsed checks what a claim its waiter does not take within the
// claim window (a stopped or throttled process) becomes: the next attempt,
// of anyone, hands the key on as the release would have (to the next
// waiter, not to whoever asked: a request that does not wait is refused);
// the stalled waiter keeps its place, passed over, and its next attempt
// gives it the next turn, ahead of the waiters queued behind it; tokens
// keep increasing.
func TestClaim_lapsed(t *testing.T) {
	db := rootDB(t)
	holder := newExecutor(t, db, shortClaim)
	a, b, d, c := newExecutor(t, db, longClaim), newExecutor(t, db, longClaim), newExecutor(t, db, longClaim), newExecutor(t, db, longClaim)
	key := uniq(t, "lapse:")
	hl := mustTake(t, holder, req(key, time.Minute), "the holder's attempt")
	for _, e := range []*mysql.Executor{a, b, d} {
		mustQueue(t, e, waiting(req(key, time.Minute)), "a waiter's attempt behind the holder")
	}
	release(t, hl)
	awaitLapse(t, key)
	mustQueue(t, c, req(key, time.Minute), "an attempt that does not wait, on a lapsed claim")
	mustQueue(t, d, waiting(req(key, time.Minute)), "the last waiter's attempt, after the lapse was handed on")
	lb := mustTake(t, b, waiting(req(key, time.Minute)), "the next waiter's attempt on the claim handed on")
	// The stalled waiter runs again: its attempt finds b holding the key
	// and gives it the next turn, before d's.
	mustQueue(t, a, waiting(req(key, time.Minute)), "the stalled waiter's attempt while b holds the key")
	release(t, lb)
	mustQueue(t, d, waiting(req(key, time.Minute)), "the last waiter's attempt after b's release")
	la := mustTake(t, a, waiting(req(key, time.Minute)), "the stalled waiter's attempt after b's release")
	release(t, la)
	ld := mustTake(t, d, waiting(req(key, time.Minute)), "the last waiter's attempt after a's release")
	release(t, ld)
	if !(hl.Token() < lb.Token() && lb.Token() < la.Token() && la.Token() < ld.Token()) {
		t.Fatalf("tokens %d, %d, %d, %d do not increase", hl.Token(), lb.Token(), la.Token(), ld.Token())
	}
}

// TestClaim_lapsedReaders checks a writer whose claim lapsed with two
// readers and a writer queued behind it: the readers have the key once
// (they were next), the stalled writer's next attempt gives it the next
// turn, ahead of the other writer and of a reader that comes later, and it
// has the key at the readers' release.
func TestClaim_lapsedReaders(t *testing.T) {
	db := rootDB(t)
	holder := newExecutor(t, db, shortClaim)
	w, r1, r2 := newExecutor(t, db, longClaim), newExecutor(t, db, longClaim), newExecutor(t, db, longClaim)
	w2, late := newExecutor(t, db, longClaim), newExecutor(t, db, longClaim)
	key := uniq(t, "lapsereaders:")
	hl := mustTake(t, holder, req(key, time.Minute), "the holder's attempt")
	mustQueue(t, w, waiting(req(key, time.Minute)), "the writer's attempt behind the holder")
	mustQueue(t, r1, waiting(shared(key, time.Minute)), "a reader's attempt behind the writer")
	mustQueue(t, r2, waiting(shared(key, time.Minute)), "a reader's attempt behind the writer")
	mustQueue(t, w2, waiting(req(key, time.Minute)), "a second writer's attempt behind the readers")
	release(t, hl)
	awaitLapse(t, key)
	l1 := mustTake(t, r1, waiting(shared(key, time.Minute)), "a reader's attempt after the writer's claim lapsed")
	l2 := mustTake(t, r2, waiting(shared(key, time.Minute)), "the other reader's attempt")
	mustQueue(t, w, waiting(req(key, time.Minute)), "the stalled writer's attempt while the readers hold the key")
	mustQueue(t, late, waiting(shared(key, time.Minute)), "a later reader's attempt, behind the resumed writer")
	release(t, l1, l2)
	mustQueue(t, w2, waiting(req(key, time.Minute)), "the second writer's attempt after the readers' release")
	lw := mustTake(t, w, waiting(req(key, time.Minute)), "the resumed writer's attempt after the readers' release")
	mustQueue(t, late, waiting(shared(key, time.Minute)), "the later reader's attempt while the writer holds the key")
	release(t, lw)
	release(t, mustTake(t, w2, waiting(req(key, time.Minute)), "the second writer's attempt after the writer's release"))
	release(t, mustTake(t, late, waiting(shared(key, time.Minute)), "the later reader's attempt after the second writer's release"))
}

// TestClaim_lapsedTaken checks that a waiter whose claim lapsed, but that
// nobody handed on yet, still takes it, with a token above the releaser's.
func TestClaim_lapsedTaken(t *testing.T) {
	db := rootDB(t)
	holder, a, b := newExecutor(t, db, shortClaim), newExecutor(t, db, longClaim), newExecutor(t, db, longClaim)
	key := uniq(t, "lapsetaken:")
	hl := mustTake(t, holder, req(key, time.Minute), "the holder's attempt")
	mustQueue(t, a, waiting(req(key, time.Minute)), "a waiter's attempt behind the holder")
	mustQueue(t, b, waiting(req(key, time.Minute)), "a waiter's attempt behind the first")
	release(t, hl)
	awaitLapse(t, key)
	la := mustTake(t, a, waiting(req(key, time.Minute)), "the stalled waiter's attempt on its lapsed claim")
	if la.Token() <= hl.Token() {
		t.Fatalf("token %d after %d: not increasing", la.Token(), hl.Token())
	}
	release(t, la)
	release(t, mustTake(t, b, waiting(req(key, time.Minute)), "the next waiter's attempt after the release"))
}

// waiting returns r as the attempt of a waiting caller.
func waiting(r executor.Request) executor.Request {
	r.Wait = true
	return r
}

// mustTake makes the attempt r of e, which must take the key.
func mustTake(t *testing.T, e *mysql.Executor, r executor.Request, what string) executor.Lease {
	t.Helper()
	l, err := e.Acquire(t.Context(), r)
	if err != nil {
		t.Fatalf("%s = %v, want the key", what, err)
	}
	return l
}

// mustQueue makes the attempt r of e, which must find the key busy (and
// queue e, for a waiting attempt).
func mustQueue(t *testing.T, e *mysql.Executor, r executor.Request, what string) {
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

// awaitLapse waits until the claim on key's row is past its window by the
// server's clock.
func awaitLapse(t *testing.T, key string) {
	t.Helper()
	db := rootDB(t)
	var lapsed bool
	if !testwait.Until(10*time.Second, func() bool {
		err := db.QueryRowContext(t.Context(), `SELECT expires <= TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))
			FROM lock4go_locks WHERE k = ? AND owner LIKE 'lock4go:claim:%'`, key).Scan(&lapsed)
		return err == nil && lapsed
	}) {
		t.Fatal("the claim on the key did not lapse within 10s")
	}
}

// shared returns a read-lock request for key with a fresh owner.
func shared(key string, ttl time.Duration) executor.Request {
	r := req(key, ttl)
	r.Shared = true
	return r
}
