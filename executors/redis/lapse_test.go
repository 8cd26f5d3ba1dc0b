package redis_test

import (
	"errors"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testwait"
)

// TestGrant_lapsed checks what a grant its grantee does not confirm within
// the claim window (a stopped or dead process) becomes: the next waiter
// that asks takes it over and gets the key as a release would have given
// it; the grantee stays in the queue as stalled, passed over by releases
// until its next attempt, which gives it the next turn; tokens keep
// increasing.
func TestGrant_lapsed(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	// Every attempt asks the server, as a waiter's quiet poll does.
	o := redis.Options{ClaimWindow: 100 * time.Millisecond}
	holder := pollingExecutor(t, newClient(t, s.Addr()), o)
	a := pollingExecutor(t, newClient(t, s.Addr()), o)
	b := pollingExecutor(t, newClient(t, s.Addr()), o)
	d := pollingExecutor(t, newClient(t, s.Addr()), o)
	f := pollingExecutor(t, newClient(t, s.Addr()), o)
	for _, e := range []*redis.Executor{a, b, d, f} {
		warmWakes(t, e)
	}
	key := uniq(t, "lapse:")
	hl := mustHold(t, holder, key)
	for _, e := range []*redis.Executor{a, b, d, f} {
		_, stop := queueUp(t, e, key)
		defer stop()
	}
	if err := hl.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	awaitLapse(t, c, key, grantOf(a, hl.Token()+1))
	lb := mustTake(t, b, key, "the next waiter's attempt on a lapsed grant")
	wantQueue(t, c, key, []*redis.Executor{a, d, f}, true)
	if err := lb.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if v := c.Get(t.Context(), key).Val(); v != grantOf(d, lb.Token()+1) {
		t.Fatalf("key after the next holder's release = %q, want the grant of the waiter after the stalled one %q", v, grantOf(d, lb.Token()+1))
	}
	// The grantee resumes: its attempt finds the key busy and moves it up
	// to the next turn, ahead of the waiters registered before it.
	if _, err := take(t, a, key); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("the resumed grantee's attempt = %v, want ErrNotAcquired", err)
	}
	wantQueue(t, c, key, []*redis.Executor{a, f}, false)
	ld := mustTake(t, d, key, "the granted waiter's confirmation")
	if err := ld.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	la := mustTake(t, a, key, "the resumed grantee's attempt after the release")
	if !(hl.Token() < lb.Token() && lb.Token() < ld.Token() && ld.Token() < la.Token()) {
		t.Fatalf("tokens %d, %d, %d, %d do not increase", hl.Token(), lb.Token(), ld.Token(), la.Token())
	}
	_ = la.Release(t.Context())
}

// TestGrant_stalledDropped checks that a stalled grantee passed over for
// longer than a queue lives (gone for good) is dropped from the queue.
func TestGrant_stalledDropped(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	w := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	warmWakes(t, w)
	key := uniq(t, "stalledgone:")
	hl := mustHold(t, holder, key)
	_, stop := queueUp(t, w, key)
	defer stop()
	// A grantee that lapsed a minute ago, by its grant's token (server µs).
	old := float64(time.Now().Add(-time.Minute).UnixMicro()) - 4e16
	if err := c.ZAdd(t.Context(), redis.QueueKey(key), goredis.Z{Score: old, Member: "gone"}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := hl.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if v := c.Get(t.Context(), key).Val(); v != grantOf(w, hl.Token()+1) {
		t.Fatalf("key after the release = %q, want the live waiter's grant", v)
	}
	if q := queueOf(t, c, key); len(q) != 0 {
		t.Fatalf("queue after the release = %v, want the long-stalled grantee dropped", q)
	}
}

// mustTake makes a waiting attempt of e on key that must take it.
func mustTake(t *testing.T, e *redis.Executor, key, what string) executor.Lease {
	t.Helper()
	l, err := take(t, e, key)
	if err != nil {
		t.Fatalf("%s = %v, want the key", what, err)
	}
	return l
}

// wantQueue checks that key's queue holds want's members in order, the
// first stalled (a score below -2e16) when stalled is set, none otherwise.
func wantQueue(t *testing.T, c *goredis.Client, key string, want []*redis.Executor, stalled bool) {
	t.Helper()
	q := c.ZRangeWithScores(t.Context(), redis.QueueKey(key), 0, -1).Val()
	ok := len(q) == len(want)
	for i := 0; ok && i < len(q); i++ {
		ok = q[i].Member == redis.Member(want[i]) && (q[i].Score < -2e16) == (stalled && i == 0)
	}
	if !ok {
		t.Fatalf("queue = %v, want %d members, the first stalled: %v", q, len(want), stalled)
	}
}

// TestGrant_lapsedConfirm checks that a grantee that confirms after its
// claim window, before anyone took the grant over, still gets the key with
// the grant's token.
func TestGrant_lapsedConfirm(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	o := redis.Options{ClaimWindow: 100 * time.Millisecond}
	holder := pollingExecutor(t, newClient(t, s.Addr()), o)
	a := pollingExecutor(t, newClient(t, s.Addr()), o)
	warmWakes(t, a)
	key := uniq(t, "lapseconfirm:")
	hl := mustHold(t, holder, key)
	_, stop := queueUp(t, a, key)
	defer stop()
	if err := hl.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	awaitLapse(t, c, key, grantOf(a, hl.Token()+1))
	l, err := take(t, a, key)
	if err != nil {
		t.Fatalf("the late grantee's attempt = %v, want the key", err)
	}
	if l.Token() != hl.Token()+1 {
		t.Fatalf("token = %d, want the grant's %d", l.Token(), hl.Token()+1)
	}
	_ = l.Release(t.Context())
}

// awaitLapse waits until key holds grant past its claim window: within a
// second of its end.
func awaitLapse(t *testing.T, c *goredis.Client, key, grant string) {
	t.Helper()
	if v := c.Get(t.Context(), key).Val(); v != grant {
		t.Fatalf("key = %q, want the grant %q", v, grant)
	}
	if !testwait.Until(5*time.Second, func() bool { return c.PTTL(t.Context(), key).Val() <= time.Second }) {
		t.Fatal("the grant did not lapse")
	}
}

// TestGrant_lapsedReaders checks that readers waiting behind a writer's
// lapsed grant take it over too: the first to ask gets its read lock, and
// the stalled writer keeps its place for when it resumes.
func TestGrant_lapsedReaders(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	o := redis.Options{ClaimWindow: 100 * time.Millisecond}
	holder := pollingExecutor(t, newClient(t, s.Addr()), o)
	writer := pollingExecutor(t, newClient(t, s.Addr()), o)
	reader := pollingExecutor(t, newClient(t, s.Addr()), o)
	for _, e := range []*redis.Executor{writer, reader} {
		warmWakes(t, e)
	}
	key := uniq(t, "lapsereaders:")
	hl := mustHold(t, holder, key)
	_, stopW := queueUp(t, writer, key)
	defer stopW()
	r := req(key, time.Minute)
	r.Wait, r.Shared = true, true
	if _, err := reader.Acquire(t.Context(), r); !errors.Is(err, executor.ErrNotAcquired) {
		t.Fatalf("reader behind the holder = %v, want ErrNotAcquired", err)
	}
	if err := hl.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	awaitLapse(t, c, key, grantOf(writer, hl.Token()+1))
	r.Owner = owner()
	rl, err := reader.Acquire(t.Context(), r)
	if err != nil {
		t.Fatalf("the reader's attempt on a lapsed grant = %v, want its read lock", err)
	}
	wantQueue(t, c, key, []*redis.Executor{writer}, true)
	if err := rl.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	wl := mustTake(t, writer, key, "the resumed writer's attempt on the free key")
	if wl.Token() <= rl.Token() {
		t.Fatalf("the writer's token %d is not above the reader's %d", wl.Token(), rl.Token())
	}
	_ = wl.Release(t.Context())
}

// pollingExecutor returns an executor over client whose waiters ask the
// server at every retry (as Redlock's masters do), closed at the end of
// the test.
func pollingExecutor(t *testing.T, client *goredis.Client, o redis.Options) *redis.Executor {
	t.Helper()
	e := newExecutor(t, client, o)
	redis.PollEveryRetry(e)
	return e
}
