package etcd_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executor/executortest"
	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
)

// revokeAll revokes leases when the test ends.
func revokeAll(t *testing.T, cli *clientv3.Client, ids []clientv3.LeaseID) {
	t.Cleanup(func() {
		for _, id := range ids {
			_, _ = cli.Revoke(context.Background(), id)
		}
	})
}

// Locks held when their session is lost, and never released (the Template
// ends them by Lost, not by Release), leave no entryLock behind.
func TestExecutor_sessionLost_dropsSlots(t *testing.T) {
	testserver.Check(t, srvErr)
	cli := newClient(t, srv.Addr())
	e := newExec(t, cli, etcd.Options{})
	const ttl = 3 * time.Second
	k := uniqueKey(t)
	var held []executor.Lease
	for _, key := range []string{k, k + "-2"} {
		r := watchdog(key, false)
		r.TTL = ttl
		held = append(held, mustAcquire(t, e, r))
	}
	waiting := acquireAsync(t.Context(), e, executor.Request{Key: k, Owner: newOwner(), TTL: ttl, Renewed: true, Wait: true})
	if n := etcd.SlotCount(e); n != 2 {
		t.Fatalf("%d entryLocks while holding two locks, want 2", n)
	}
	if _, err := cli.Revoke(t.Context(), entryLease(t, cli, k)); err != nil {
		t.Fatal(err)
	}
	for _, l := range held {
		select {
		case <-executortest.Lost(l):
		case <-time.After(ttl):
			t.Fatal("Lost() still open a TTL after the revoke")
		}
	}
	// The waiter on the same executor starts over on a fresh session and
	// gets the lock.
	mustRelease(t, outcome(t, waiting))
	// Lost closes just before the entryLocks are dropped.
	deadline := time.Now().Add(5 * time.Second)
	for etcd.SlotCount(e) != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := etcd.SlotCount(e); n != 0 {
		t.Fatalf("%d entryLocks left after the session was lost, want 0", n)
	}
	for _, l := range held {
		if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
			t.Fatalf("Release after the loss = %v, want ErrLockNotHeld", err)
		}
	}
	if n := etcd.SlotCount(e); n != 0 {
		t.Fatalf("%d entryLocks after a late Release, want 0", n)
	}
}

// An attempt whose shared session is marked lost after it picked the
// session returns no Lease, waiting or not, and leaves no entry and no entryLock.
func TestExecutor_Acquire_sessionLostDuringAttempt(t *testing.T) {
	testserver.Check(t, srvErr)
	cli := newClient(t, srv.Addr())
	for _, wait := range []bool{false, true} {
		e := newExec(t, cli, etcd.Options{})
		k := uniqueKey(t)
		l, id, err := etcd.TryOnLostSession(t.Context(), e, watchdog(k, wait))
		revokeAll(t, cli, []clientv3.LeaseID{id})
		if err == nil {
			_ = l.Release(t.Context())
			t.Fatalf("attempt (wait=%v) on a lost session returned a Lease", wait)
		}
		if !errors.Is(err, executor.ErrBackend) || !errors.Is(err, etcd.ErrSessionLost) {
			t.Fatalf("attempt (wait=%v) on a lost session = %v, want ErrBackend and the session's loss", wait, err)
		}
		waitEntries(t, cli, k, 0)
		if n := etcd.SlotCount(e); n != 0 {
			t.Fatalf("%d entryLocks left, want 0", n)
		}
		// Acquire starts over on a fresh session.
		mustRelease(t, mustAcquire(t, e, watchdog(k, wait)))
	}
}

// A watchdog lock whose session was lost by the local clock, while etcd
// still keeps its entry, is not held: Release deletes the entry and reports
// ErrLockNotHeld.
func TestLease_Release_afterLocalLoss(t *testing.T) {
	testserver.Check(t, srvErr)
	cli := newClient(t, srv.Addr())
	e := newExec(t, cli, etcd.Options{})
	k := uniqueKey(t)
	l := mustAcquire(t, e, watchdog(k, false))
	revokeAll(t, cli, etcd.LoseSessions(e))
	if !executortest.IsLost(l) {
		t.Fatal("the lease does not report itself lost after the session was lost")
	}
	waitEntries(t, cli, k, 1) // etcd still has it
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Release after the local loss = %v, want ErrLockNotHeld", err)
	}
	waitEntries(t, cli, k, 0)
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("second Release = %v, want ErrLockNotHeld", err)
	}
}

// An entry deleted behind its holder (etcdctl del, a force release) is
// found by the session's check after the next keep-alive: the lease
// reports itself lost, names the delete, Release says ErrLockNotHeld, and
// the key can be taken again by this process under the same session.
func TestLease_entryDeletedBehindHolder(t *testing.T) {
	testserver.Check(t, srvErr)
	cli := newClient(t, srv.Addr())
	e := newExec(t, cli, etcd.Options{})
	k := uniqueKey(t)
	r := watchdog(k, false)
	r.TTL = 3 * time.Second
	l := mustAcquire(t, e, r)
	ro := watchdog(k+"-other", false)
	ro.TTL = r.TTL
	other := mustAcquire(t, e, ro) // same session, not deleted
	if _, err := cli.Delete(t.Context(), k+"/", clientv3.WithPrefix()); err != nil {
		t.Fatal(err)
	}
	deleted := time.Now()
	select {
	case <-executortest.Lost(l):
	case <-time.After(r.TTL/3 + 5*time.Second):
		t.Fatal("the lease did not report the deleted entry")
	}
	if d := time.Since(deleted); d > r.TTL/3+time.Second {
		t.Errorf("loss reported %v after the delete, later than a keep-alive interval (%v) plus a second", d, r.TTL/3)
	}
	cause := executor.LostCause(l)
	if cause == nil || !strings.Contains(cause.Error(), "deleted") {
		t.Fatalf("LostCause = %v, want one naming the delete", cause)
	}
	if err := l.Release(t.Context()); !errors.Is(err, executor.ErrLockNotHeld) {
		t.Fatalf("Release = %v, want ErrLockNotHeld", err)
	}
	if executortest.IsLost(other) {
		t.Fatal("a lock of the same session whose entry stands was reported lost")
	}
	mustRelease(t, mustAcquire(t, e, r))
	mustRelease(t, other)
}
