package redis_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/redis"
)

// grantOf returns the value of the direct grant of key to e with token: a
// first grant (flags q and l).
func grantOf(e *redis.Executor, token int64) string {
	return "lock4go:claim:" + redis.Member(e) + "\x00" + strconv.FormatInt(token, 10) + "ql"
}

// TestGrant_confirm checks the direct grant: the release of a lock with a
// waiter writes the waiter's grant (its token, the holder's plus one, for a
// claim window and the second in which a lapsed grant is taken over) and
// wakes it; the woken waiter's attempt confirms it with
// one script of three commands (EVALSHA, GET, SET: no TIME) and holds the
// key with that token for its lease; its release, with nobody queued,
// frees the key.
func TestGrant_confirm(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	waiter := newExecutor(t, newClient(t, s.Addr()), redis.Options{ClaimWindow: 300 * time.Millisecond})
	warmWakes(t, waiter)
	key := uniq(t, "grant:")
	hl := mustHold(t, holder, key)
	w, stop := queueUp(t, waiter, key)
	defer stop()
	if err := hl.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := hl.Token() + 1
	if v := c.Get(t.Context(), key).Val(); v != grantOf(waiter, want) {
		t.Fatalf("key after the release = %q, want the grant %q", v, grantOf(waiter, want))
	}
	if d := c.PTTL(t.Context(), key).Val(); d <= 0 || d > 1300*time.Millisecond {
		t.Fatalf("PTTL of the grant = %v, want the claim window and a second", d)
	}
	if !fired(w, 2*time.Second) {
		t.Fatal("the waiter was not woken")
	}
	before := commandStats(t, c)
	l, err := take(t, waiter, key)
	if err != nil {
		t.Fatalf("the woken waiter's attempt = %v", err)
	}
	after := commandStats(t, c)
	for name, n := range map[string]int64{"evalsha": 1, "get": 1, "set": 1, "time": 0, "zrem": 0} {
		if d := after[name].calls - before[name].calls; d != n {
			t.Errorf("the confirmation called %s %d times, want %d", name, d, n)
		}
	}
	if l.Token() != want {
		t.Fatalf("token after the confirmation = %d, want the grant's %d", l.Token(), want)
	}
	if d := c.PTTL(t.Context(), key).Val(); d < 50*time.Second {
		t.Fatalf("PTTL after the confirmation = %v, want the lease (a minute)", d)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := c.Exists(t.Context(), key).Val(); n != 0 {
		t.Fatal("key still there after the release of the confirmed lock with nobody queued")
	}
}

// TestGrant_voidedConfirm checks the void of a confirmation whose reply was
// lost, in both orders: the confirmation landed (the void frees the lock
// for the next waiter), or the void came first (it frees the grant for the
// next waiter, and the confirmation landing late finds the key busy).
func TestGrant_voidedConfirm(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	first := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	second := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	warmWakes(t, first)
	warmWakes(t, second)
	for _, landed := range []bool{true, false} {
		key := uniq(t, "grantvoid:")
		hl, w2 := handToFirst(t, holder, first, second, key)
		grant := grantOf(first, hl.Token()+1)
		r := req(key, time.Minute)
		r.Wait = true
		if landed {
			if _, err := first.Acquire(t.Context(), r); err != nil {
				t.Fatalf("confirmation = %v", err)
			}
		}
		if !redis.VoidGrant(first, key, r.Owner, grant, time.Minute) {
			t.Fatal("void failed")
		}
		if v := c.Get(t.Context(), key).Val(); v != grantOf(second, hl.Token()+2) {
			t.Fatalf("landed=%v: key after the void = %q, want the next waiter's grant", landed, v)
		}
		if !fired(w2, 2*time.Second) {
			t.Fatalf("landed=%v: the void did not wake the next waiter", landed)
		}
		if !landed {
			if _, err := first.Acquire(t.Context(), r); !errors.Is(err, executor.ErrNotAcquired) {
				t.Fatalf("a late confirmation after its void = %v, want ErrNotAcquired", err)
			}
		}
		l, err := take(t, second, key)
		if err != nil {
			t.Fatalf("landed=%v: the next waiter's confirmation = %v", landed, err)
		}
		if l.Token() != hl.Token()+2 {
			t.Fatalf("landed=%v: token = %d, want %d", landed, l.Token(), hl.Token()+2)
		}
		_ = l.Release(t.Context())
	}
}

// TestGrant_requeueFIFO checks that a release that queues its executor
// again for its followers puts it behind every executor that registered
// before (the tokens of a chain of grants lag the clock: scored by the
// token, the executor went ahead of them).
func TestGrant_requeueFIFO(t *testing.T) {
	s := server(t)
	c := newClient(t, s.Addr())
	holder := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	a := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	b := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	d := newExecutor(t, newClient(t, s.Addr()), redis.Options{})
	for _, e := range []*redis.Executor{a, b, d} {
		warmWakes(t, e)
	}
	key := uniq(t, "requeue:")
	hl := mustHold(t, holder, key)
	wa, stopA := queueUp(t, a, key)
	defer stopA()
	_, stopB := queueUp(t, b, key)
	defer stopB()
	_, stopD := queueUp(t, d, key)
	defer stopD()
	if err := hl.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !fired(wa, 2*time.Second) {
		t.Fatal("the head was not woken")
	}
	r := req(key, time.Minute)
	r.Wait, r.Followers = true, true
	l, err := a.Acquire(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	if q := queueOf(t, c, key); len(q) != 2 || q[0] != redis.Member(d) || q[1] != redis.Member(a) {
		t.Fatalf("queue after the release with followers = %v, want [%s %s]", q, redis.Member(d), redis.Member(a))
	}
}
