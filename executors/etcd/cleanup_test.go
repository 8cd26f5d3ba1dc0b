package etcd_test

import (
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executors/etcd"
	"github.com/lock4go/lock4go/internal/testserver"
)

// entryOf returns the etcd key of key's entry under lease id.
func entryOf(key string, id clientv3.LeaseID) string { return fmt.Sprintf("%s/%x", key, int64(id)) }

// A write with a lost reply that lands after its clean-up, on the entry a
// later acquisition of this process holds, overwrites that entry's value:
// the void round must spare the entry while it is held, and delete the late
// write once it is the only thing left.
func TestExecutor_voidRound_sparesHeldEntry(t *testing.T) {
	testserver.Check(t, srvErr)
	cli := newClient(t, srv.Addr())
	e := newExec(t, cli, etcd.Options{})
	k := uniqueKey(t)
	r := watchdog(k, false)
	stale := newOwner()
	id, err := etcd.NoteUncertain(t.Context(), e, k, stale, r.TTL)
	if err != nil {
		t.Fatal(err)
	}
	l := mustAcquire(t, e, r)
	entry := entryOf(k, id)
	if _, err := cli.Put(t.Context(), entry, stale, clientv3.WithLease(id)); err != nil { // the late write
		t.Fatal(err)
	}
	etcd.SweepNow(e)
	resp, err := cli.Get(t.Context(), entry)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || resp.Kvs[0].CreateRevision != l.Token() {
		t.Fatalf("held entry after a void round: %v, want create revision %d", resp.Kvs, l.Token())
	}
	if err := l.Renew(t.Context(), r.TTL); err != nil {
		t.Fatalf("Renew of the held lock after a void round = %v", err)
	}
	mustRelease(t, l)
	if n := etcd.UncertainCount(e); n != 1 {
		t.Fatalf("%d writes to void, want 1 (not seen applied)", n)
	}

	// Landing after the release, the late write would block the key for
	// as long as the session lives; the void round removes it.
	if _, err := cli.Put(t.Context(), entry, stale, clientv3.WithLease(id)); err != nil {
		t.Fatal(err)
	}
	etcd.SweepNow(e)
	waitEntries(t, cli, k, 0)
	if n := etcd.UncertainCount(e); n != 0 {
		t.Fatalf("%d writes to void after the late one was removed, want 0", n)
	}
	mustRelease(t, mustAcquire(t, newExec(t, cli, etcd.Options{}), watchdog(k, false)))
}

// The session's own void loop, not a test's call, removes a late write.
func TestExecutor_voidRound_background(t *testing.T) {
	testserver.Check(t, srvErr)
	cli := newClient(t, srv.Addr())
	e := newExec(t, cli, etcd.Options{})
	k := uniqueKey(t)
	stale := newOwner()
	id, err := etcd.NoteUncertain(t.Context(), e, k, stale, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(t.Context(), entryOf(k, id), stale, clientv3.WithLease(id)); err != nil {
		t.Fatal(err)
	}
	waitEntries(t, cli, k, 0) // the first void round runs a second after the record
}
