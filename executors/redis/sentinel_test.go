package redis_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/redis"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/testwait"
)

// sentinelExpire is the watchdog lease of the Sentinel tests: renewed
// every 1.67s, longer than a kill -9 failover takes here (about 2.5s from
// the kill), so a replicated lock can survive it.
const sentinelExpire = 5 * time.Second

// TestSentinel runs a lock service over a Sentinel failover client
// (goredis.NewFailoverClient) through both kinds of master switch, and
// reports the figures: when new locks succeed again, what became of a lock
// held across the switch, when the pub/sub hub is back on the new master,
// and how long a waiter that waited across the switch took to get the lock
// once its holder released it. The kill -9 case also loses a lock on
// purpose (the replica's link is cut just before it is written): asynchronous
// replication's caveat, which must end with the first holder told.
func TestSentinel(t *testing.T) {
	for _, tc := range []struct {
		name string
		kill bool
	}{
		{"SentinelFailover", false},
		{"KillMaster", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			newSentinelRun(t).run(tc.name, tc.kill)
		})
	}
}

// run is one TestSentinel case.
func (r *sentinelRun) run(name string, kill bool) {
	ctx := r.t.Context()
	held := r.lock(r.a, "lock4go:sentinel:held")
	early := r.lock(r.a, "lock4go:sentinel:early")
	earlyWaiter := r.wait(early.Key())
	late := r.lock(r.a, "lock4go:sentinel:late")
	lateWaiter := r.wait(late.Key())
	var caveat *lock4go.Lock
	if kill {
		caveat = r.unreplicatedLock()
	}
	t0 := time.Now()
	master := r.switchMaster(kill)
	switched := time.Since(t0)
	resubscribed := make(chan time.Duration, 1)
	go func() { resubscribed <- r.awaitSubscriber(master, late.Key(), t0) }()
	// Whether the caveat lock reached the replica, now the master, before
	// the old master died.
	replicated := caveat != nil && r.node(master).Exists(ctx, caveat.Key()).Val() == 1
	resumed := r.awaitService(t0)
	earlyHandoff := r.handOff(early, earlyWaiter)
	if caveat != nil {
		r.checkCaveat(caveat, replicated, t0)
	}
	heldFate := r.heldOutcome(held, master, t0)
	resub := <-resubscribed
	if resub >= 0 && resub-switched > time.Second {
		// go-redis moves its command pools on +switch-master, not its
		// pub/sub connection: the hub must follow by itself.
		r.t.Errorf("pub/sub subscribed on the new master %v after the switch, want within a second", (resub - switched).Round(time.Millisecond))
	}
	lateHandoff := r.handOff(late, lateWaiter)
	r.t.Logf("%s: new master after %v; new locks succeed %v after the switch began; held lock: %s; pub/sub subscribed on the new master %v after the switch began; waiters that waited across the switch got their lock %v after a release at once after the switch (retry interval 1s), %v after a release once pub/sub was back; %d renewals failed",
		name, switched.Round(time.Millisecond), resumed.Round(time.Millisecond), heldFate, resub.Round(time.Millisecond),
		earlyHandoff.Round(time.Millisecond), lateHandoff.Round(time.Millisecond), r.renewFailed.Load())
}

// unreplicatedLock takes a lock that the replica does not get: a first
// lock and release of the key reach the replica, then the replica's link
// is cut and the key taken again. Its token must not come again from the
// new master (issue 26, item 3: with a fencing counter that lost its last
// increment in the failover, the second holder got the same token).
func (r *sentinelRun) unreplicatedLock() *lock4go.Lock {
	r.t.Helper()
	key := uniq(r.t, "lock4go:sentinel:caveat:")
	if err := r.lockKey(r.a, key).Release(r.t.Context()); err != nil {
		r.t.Fatal(err)
	}
	r.cutReplicaLink()
	return r.lockKey(r.a, key)
}

// sentinelRun is one Sentinel group and two Templates over their own
// failover clients, as two processes.
type sentinelRun struct {
	t           *testing.T
	s           *testserver.Sentinel
	logs        logRecorder
	a, b        *lock4go.Template
	renewFailed atomic.Int64
}

func newSentinelRun(t *testing.T) *sentinelRun {
	testserver.Check(t, srvErr)
	s, err := testserver.StartRedisSentinel()
	testserver.Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	r := &sentinelRun{t: t, s: s, logs: newLogRecorder(t)}
	r.a, r.b = r.template(), r.template()
	return r
}

// template returns a Template over a new failover client.
func (r *sentinelRun) template() *lock4go.Template {
	c := goredis.NewFailoverClient(&goredis.FailoverOptions{
		MasterName:    testserver.SentinelMasterName,
		SentinelAddrs: r.s.SentinelAddrs(),
		DialTimeout:   time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
		ContextTimeoutEnabled: true,
	})
	r.t.Cleanup(func() { _ = c.Close() })
	e := newExecutor(r.t, c, redis.Options{Logger: r.logs.logger()})
	obs := lock4go.ObserverFunc(func(_ context.Context, ev lock4go.Event) {
		if ev.Kind == lock4go.EventRenewFailed {
			r.renewFailed.Add(1)
		}
	})
	tpl, err := lock4go.New(lock4go.Config{Expire: sentinelExpire, Logger: r.logs.logger(), Observer: obs}, e)
	if err != nil {
		r.t.Fatal(err)
	}
	return tpl
}

// node returns a plain client of one data node.
func (r *sentinelRun) node(s *testserver.Server) *goredis.Client {
	return newClient(r.t, s.Addr(), ctxTimeouts)
}

// lock takes a fresh key with the given prefix through tpl.
func (r *sentinelRun) lock(tpl *lock4go.Template, prefix string) *lock4go.Lock {
	r.t.Helper()
	return r.lockKey(tpl, uniq(r.t, prefix+":"))
}

// lockKey takes key through tpl.
func (r *sentinelRun) lockKey(tpl *lock4go.Template, key string) *lock4go.Lock {
	r.t.Helper()
	l, err := tpl.Lock(r.t.Context(), key)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { _ = l.Release(context.Background()) })
	return l
}

// waited is what a waiter got.
type waited struct {
	token int64
	at    time.Time
	err   error
}

// wait starts a waiter for key on the second Template and returns once its
// subscription reached the master.
func (r *sentinelRun) wait(key string) <-chan waited {
	ch := make(chan waited, 1)
	go func() {
		l, err := r.b.Lock(r.t.Context(), key, lock4go.WithAcquireTimeout(time.Minute), lock4go.WithRetryInterval(time.Second))
		w := waited{at: time.Now(), err: err}
		if err == nil {
			w.token = l.Token()
			_ = l.Release(context.WithoutCancel(r.t.Context()))
		}
		ch <- w
	}()
	m, err := r.s.Master(r.t.Context())
	if err != nil {
		r.t.Fatal(err)
	}
	if r.awaitSubscriber(m, key, time.Now()) < 0 {
		r.t.FailNow()
	}
	return ch
}

// awaitSubscriber waits until node m has a waiter for key: an executor in
// key's wait queue whose wake channel has a subscriber on m. It returns how
// long after since that was, or -1 if that did not happen within a minute
// (an error of the test, which may run in another goroutine than the
// test's).
func (r *sentinelRun) awaitSubscriber(m *testserver.Server, key string, since time.Time) time.Duration {
	c, q := r.node(m), redis.QueueKey(key)
	if !testwait.Until(time.Minute, func() bool {
		for _, member := range c.ZRange(r.t.Context(), q, 0, -1).Val() {
			ch := "lock4go:wake:" + member
			if c.PubSubNumSub(r.t.Context(), ch).Val()[ch] > 0 {
				return true
			}
		}
		return false
	}) {
		r.t.Errorf("no waiter of %s queued and subscribed on %s", key, m.Addr())
		return -1
	}
	return time.Since(since)
}

// cutReplicaLink makes the replica drop its link to the master and fail to
// reconnect (it authenticates as a user the master does not have), so that
// writes from now on reach the master only.
func (r *sentinelRun) cutReplicaLink() {
	r.t.Helper()
	c := r.node(r.s.Redis[1])
	for _, cmd := range [][]any{
		{"CONFIG", "SET", "masteruser", "lock4go-no-such-user"},
		{"CONFIG", "SET", "masterauth", "x"},
		{"CLIENT", "KILL", "TYPE", "master"},
	} {
		if err := c.Do(r.t.Context(), cmd...).Err(); err != nil {
			r.t.Fatalf("%v: %v", cmd, err)
		}
	}
	if !testwait.Until(10*time.Second, func() bool {
		info := c.Info(r.t.Context(), "replication").Val()
		return strings.Contains(info, "master_link_status:down")
	}) {
		r.t.Fatal("the replica's link to the master is still up")
	}
}

// switchMaster kills the master (kill) or asks for SENTINEL FAILOVER, and
// returns the new master.
func (r *sentinelRun) switchMaster(kill bool) (master *testserver.Server) {
	r.t.Helper()
	ctx := r.t.Context()
	old, err := r.s.Master(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	if kill {
		if _, err := r.s.KillMaster(ctx); err != nil {
			r.t.Fatal(err)
		}
		master, err = r.s.AwaitFailover(ctx, old)
	} else {
		master, err = r.s.Failover(ctx)
	}
	if err != nil {
		r.t.Fatal(err)
	}
	return master
}

// handOff releases l, whose key w waits for, and returns how long the
// waiter took to get it.
func (r *sentinelRun) handOff(l *lock4go.Lock, w <-chan waited) time.Duration {
	r.t.Helper()
	released := time.Now()
	if err := l.Release(r.t.Context()); err != nil {
		r.t.Fatalf("release after the switch: %v", err)
	}
	got := <-w
	if got.err != nil {
		r.t.Fatalf("a waiter that waited across the switch: %v", got.err)
	}
	if got.token <= l.Token() {
		r.t.Errorf("the waiter's token %d is not above the holder's %d", got.token, l.Token())
	}
	return got.at.Sub(released)
}

// awaitService returns how long after t0 a new lock is first taken.
func (r *sentinelRun) awaitService(t0 time.Time) time.Duration {
	r.t.Helper()
	for {
		l, err := r.a.Lock(r.t.Context(), uniq(r.t, "lock4go:sentinel:probe:"), lock4go.WithAcquireTimeout(500*time.Millisecond))
		if err == nil {
			_ = l.Release(r.t.Context())
			return time.Since(t0)
		}
		if r.t.Context().Err() != nil || time.Since(t0) > time.Minute {
			r.t.Fatalf("no new lock within %v of the switch: %v", time.Since(t0), err)
		}
	}
}

// heldOutcome waits until the lock held across the switch is renewed on the
// new master or told lost, checks that a lock still believed held is the
// new master's, and describes what happened.
func (r *sentinelRun) heldOutcome(l *lock4go.Lock, m *testserver.Server, t0 time.Time) string {
	r.t.Helper()
	c := r.node(m)
	last := c.PTTL(r.t.Context(), l.Key()).Val()
	for time.Since(t0) < 3*sentinelExpire {
		select {
		case <-l.Done():
			if !errors.Is(l.Err(), lock4go.ErrLockLost) {
				r.t.Fatalf("held lock ended with %v, want ErrLockLost", l.Err())
			}
			return "told lost " + time.Since(t0).Round(time.Millisecond).String() + " after the switch began (" + l.Err().Error() + ")"
		case <-time.After(20 * time.Millisecond):
		}
		p := c.PTTL(r.t.Context(), l.Key()).Val()
		if p > last+100*time.Millisecond {
			if owner, _, _ := redis.ParseValue(c.Get(r.t.Context(), l.Key()).Val()); owner != l.Owner() {
				r.t.Fatalf("held lock renewed, but the new master has owner %q, not %q", owner, l.Owner())
			}
			return "kept, renewed on the new master " + time.Since(t0).Round(time.Millisecond).String() + " after the switch began"
		}
		last = p
	}
	r.t.Fatalf("held lock neither renewed on the new master nor told lost %v after the switch", 3*sentinelExpire)
	return ""
}

// checkCaveat takes the caveat lock's key through the second Template.
// When the replica never got the write, the new master does not have it: the
// second Template gets the lock while the first may still believe it holds
// it (asynchronous replication, the documented caveat), and the first must
// be told it lost the lock when its renewal reaches the new master. When
// the write was replicated, the lock stays the first holder's.
func (r *sentinelRun) checkCaveat(first *lock4go.Lock, replicated bool, t0 time.Time) {
	r.t.Helper()
	ctx := r.t.Context()
	l, err := r.b.Lock(ctx, first.Key(), lock4go.WithAcquireTimeout(time.Second))
	if replicated {
		if err == nil {
			r.t.Fatalf("the caveat lock was replicated, yet a second holder got it (token %d, first %d)", l.Token(), first.Token())
		}
		r.t.Logf("caveat did not bite: the write reached the replica before the master died; the lock stays the first holder's")
		return
	}
	if err != nil {
		r.t.Fatalf("the new master lacks the caveat lock, yet a second holder could not take it: %v", err)
	}
	got := time.Since(t0)
	select {
	case <-first.Done():
	case <-time.After(2 * sentinelExpire):
		r.t.Fatalf("the first holder of a lock lost in the failover was not told within %v", 2*sentinelExpire)
	}
	told := time.Since(t0)
	if !errors.Is(first.Err(), lock4go.ErrLockLost) {
		r.t.Fatalf("first holder: Err %v, want ErrLockLost", first.Err())
	}
	// Done closes just before the loss is logged.
	if !testwait.Until(5*time.Second, func() bool { return r.logs.logged("lock4go: lock lost", first.Key()) }) {
		r.t.Fatal("the first holder's loss was not logged")
	}
	if l.Token() <= first.Token() {
		r.t.Errorf("the second holder's token %d is not above the first's, %d", l.Token(), first.Token())
	}
	r.t.Logf("CAVEAT (Redis asynchronous replication): the master died before replicating a lock; a second holder got the lock %v after the switch began, the first was told it lost the lock %v after the switch began (both held it for %v); tokens: second %d, first %d%s",
		got.Round(time.Millisecond), told.Round(time.Millisecond), max(told-got, 0).Round(time.Millisecond), l.Token(), first.Token(), map[bool]string{true: " (the same token twice)", false: ""}[l.Token() == first.Token()])
	_ = l.Release(ctx)
}

// logged reports whether a record with msg mentioning key was logged.
func (r logRecorder) logged(msg, key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rec := range *r.recs {
		if rec.Message != msg {
			continue
		}
		found := false
		rec.Attrs(func(a slog.Attr) bool {
			found = found || strings.Contains(a.Value.String(), key)
			return !found
		})
		if found {
			return true
		}
	}
	return false
}
