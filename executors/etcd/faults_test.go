package etcd_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
	"github.com/lock4go/lock4go/internal/timerprobe"
)

// ownServer starts an etcd for one fault test, stopped when it ends.
func ownServer(t *testing.T) *testserver.Server {
	t.Helper()
	s, err := testserver.StartEtcd()
	testserver.Check(t, err)
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

// entryLease returns the lease of the oldest entry of key: the holder's.
func entryLease(t *testing.T, cli *clientv3.Client, key string) clientv3.LeaseID {
	t.Helper()
	resp, err := cli.Get(t.Context(), key+"/", clientv3.WithFirstCreate()...)
	if err != nil || len(resp.Kvs) == 0 {
		t.Fatalf("no entry of %q: %v", key, err)
	}
	return clientv3.LeaseID(resp.Kvs[0].Lease)
}

// A lease revoked from outside ends the lock: the next waiter gets it at
// once, Lost closes (at the next keep-alive, within a third of the TTL, or
// at once when an acquisition on the same session finds the lease gone, and
// starts over on a fresh session), and the stale handle can neither renew
// nor release.
func TestLease_Lost_revokedFromOutside(t *testing.T) {
	testserver.Check(t, srvErr)
	if _, err := exec.LookPath("etcdctl"); err != nil {
		testserver.Check(t, testserver.ErrNotInstalled)
	}
	for _, reacquire := range []bool{false, true} {
		t.Run(fmt.Sprintf("acquire on the session=%v", reacquire), func(t *testing.T) {
			cli := newClient(t, srv.Addr())
			a := newExec(t, cli, etcd.Options{})
			b := newExec(t, newClient(t, srv.Addr()), etcd.Options{})
			k := uniqueKey(t)
			const ttl = 3 * time.Second
			r := watchdog(k, false)
			r.TTL = ttl
			l := mustAcquire(t, a, r)
			ch := acquireAsync(t.Context(), b, watchdog(k, true))
			notYet(t, ch, 100*time.Millisecond)

			id := entryLease(t, cli, k)
			cmd := exec.Command("etcdctl", "--endpoints=http://"+srv.Addr(), "lease", "revoke", fmt.Sprintf("%x", int64(id)))
			cmd.Env = append(os.Environ(), "ETCDCTL_API=3")
			revoked := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("etcdctl lease revoke: %v: %s", err, out)
			}
			if reacquire {
				again := r
				again.Key, again.Owner = k+"-again", newOwner()
				mustRelease(t, mustAcquire(t, a, again))
			}
			next := outcome(t, ch)
			defer mustRelease(t, next)
			select {
			case <-executortest.Lost(l):
				t.Logf("Lost() closed %v after the revoke (keep-alive every %v)", time.Since(revoked), ttl/3)
			case <-time.After(ttl/3 + time.Second):
				t.Fatal("Lost() still open after a third of the TTL")
			}
			if err := l.Renew(t.Context(), ttl); !errors.Is(err, executor.ErrLockNotHeld) {
				t.Fatalf("Renew after revoke = %v, want ErrLockNotHeld", err)
			}
			if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
				t.Fatalf("Release after revoke = %v, want ErrLockNotHeld", err)
			}
			// The executor carries on with a fresh session.
			after := r
			after.Key, after.Owner = k+"-after", newOwner()
			mustRelease(t, mustAcquire(t, a, after))
		})
	}
}

// With etcd paused or killed, Acquire fails with ErrBackend within its
// deadline, and a watchdog lock's Lost closes before its lease could end
// by the local clock (the last keep-alive was sent before the fault, so
// the lease ends at the latest a TTL after it); a Release after that
// reports the lock not held, and etcd unreachable. etcd's own
// concurrency.Session, on the same fault, is logged for comparison.
func TestExecutor_backendDown(t *testing.T) {
	tests := []struct {
		name  string
		fault func(*testserver.Server) error
	}{
		{"paused", (*testserver.Server).Pause},
		{"killed", (*testserver.Server).Kill},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ownServer(t)
			t.Cleanup(func() { _ = s.Resume() })
			cli := newClient(t, s.Addr())
			e := newExec(t, cli, etcd.Options{})
			const ttl = 3 * time.Second
			r := watchdog(uniqueKey(t), false)
			r.TTL = ttl
			l := mustAcquire(t, e, r)
			cs, err := concurrency.NewSession(cli, concurrency.WithTTL(int(ttl/time.Second)))
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Orphan()
			// Let both keep-alives run a round before the fault.
			time.Sleep(ttl/3 + 200*time.Millisecond)

			probe := timerprobe.Start()
			if err := tc.fault(s); err != nil {
				t.Fatal(err)
			}
			down := time.Now()
			// Acquire must end with its ctx. On a busy machine it returned
			// up to 220 ms after the deadline; a hang on the client's dial
			// timeout (5s) or on the TTL (3s) would take seconds longer
			// than the bound.
			const timeout = 500 * time.Millisecond
			for _, req := range []executor.Request{watchdog(uniqueKey(t), true), watchdog(uniqueKey(t), false), fixed(uniqueKey(t), ttl, true)} {
				ctx, cancel := context.WithTimeout(t.Context(), timeout)
				start := time.Now()
				_, err := e.Acquire(ctx, req)
				cancel()
				if took := time.Since(start); !errors.Is(err, executor.ErrBackend) || took > 2*timeout {
					t.Fatalf("Acquire(Renewed=%v) with etcd %s = %v after %v, want ErrBackend soon after its %v ctx ends", req.Renewed, tc.name, err, took, timeout)
				}
			}
			var lostAfter, sessionAfter time.Duration
			select {
			case <-executortest.Lost(l):
				lostAfter = time.Since(down)
			case <-time.After(2 * ttl):
				t.Fatal("Lost() still open long after the lease could have ended")
			}
			// The executor's timer, and this test's wake-up, are as late as
			// the process's timers were around the lease's end (a busy
			// machine: 140 ms under make test-under-load); nothing else
			// excuses a signal after it.
			if late := timerprobe.Max(probe.Stop(), down.UnixNano(), down.Add(lostAfter).UnixNano()); lostAfter > ttl+late {
				t.Errorf("Lost() closed %v after the fault, later than the TTL %v and the largest timer delay %v", lostAfter, ttl, late)
			}
			if lostAfter < ttl/2 {
				t.Errorf("Lost() closed %v after the fault, well before the lease could end", lostAfter)
			}
			select {
			case <-cs.Done():
				sessionAfter = time.Since(down)
			case <-time.After(3 * ttl):
			}
			t.Logf("etcd %s: Lost() closed after %v; concurrency.Session.Done() after %v (TTL %v)", tc.name, lostAfter, sessionAfter, ttl)
			ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
			defer cancel()
			// Lost has closed: the lock is not held, and etcd cannot be
			// reached to delete its entry.
			if err := l.Release(ctx); !errors.Is(err, executor.ErrLockNotHeld) || !errors.Is(err, executor.ErrBackend) {
				t.Fatalf("Release with etcd %s after Lost = %v, want ErrLockNotHeld and ErrBackend", tc.name, err)
			}
		})
	}
}

// The ground truth for "before the lease ends": behind a blackholed
// connection the client hears nothing while etcd, still running, expires
// the lease and deletes the entry. Lost must close before an observer on a
// healthy connection sees that delete. concurrency.Session, on the same
// fault, is logged for comparison.
func TestLease_Lost_beforeEtcdFreesKey(t *testing.T) {
	testserver.Check(t, srvErr)
	p, err := testserver.NewProxy(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	t.Cleanup(func() { p.SetBlackhole(false) })
	cli := newClient(t, p.Addr())
	observer := newClient(t, srv.Addr())
	e := newExec(t, cli, etcd.Options{})
	const ttl = 3 * time.Second
	k := uniqueKey(t)
	r := watchdog(k, false)
	r.TTL = ttl
	l := mustAcquire(t, e, r)
	cs, err := concurrency.NewSession(cli, concurrency.WithTTL(int(ttl/time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Orphan()
	m := concurrency.NewMutex(cs, k+"-mutex")
	if err := m.Lock(t.Context()); err != nil {
		t.Fatal(err)
	}
	wch := observer.Watch(t.Context(), k, clientv3.WithPrefix(), clientv3.WithFilterPut())
	time.Sleep(ttl/3 + 200*time.Millisecond) // a keep-alive round for both

	p.SetBlackhole(true)
	start := time.Now()
	probe := timerprobe.Start()
	defer probe.Stop()
	lostCh := executortest.Lost(l)
	var lost, done, freed, mutexFreed time.Duration
	for lost == 0 || done == 0 || freed == 0 || mutexFreed == 0 {
		select {
		case <-lostCh:
			if lost == 0 {
				lost = time.Since(start)
			}
		case <-cs.Done():
			if done == 0 {
				done = time.Since(start)
			}
		case wr := <-wch:
			for _, ev := range wr.Events {
				switch string(ev.Kv.Key) {
				case m.Key():
					mutexFreed = time.Since(start)
				default:
					freed = time.Since(start)
				}
			}
		case <-time.After(4 * ttl):
			t.Fatalf("after %v: Lost %v, Session.Done %v, entry deleted %v, mutex entry deleted %v", time.Since(start), lost, done, freed, mutexFreed)
		}
	}
	// The loss is due before etcd can free the key; a process the machine
	// did not run then learns late, by as much as its timers were late.
	if late := timerprobe.Max(probe.Stop(), start.UnixNano(), start.Add(lost).UnixNano()); lost > freed+late {
		t.Fatalf("etcd freed the key %v after the blackhole, the lease reported itself lost only after %v (timers up to %v late)", freed, lost, late)
	}
	t.Logf("blackhole: Lost() after %v, etcd deleted the entry after %v (%v later); concurrency.Session.Done() after %v, its entry deleted after %v (%v later)",
		lost, freed, freed-lost, done, mutexFreed, mutexFreed-done)
}
