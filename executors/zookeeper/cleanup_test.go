package zookeeper

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// awaitNoReapers polls until none of e's background deletions runs.
func awaitNoReapers(t *testing.T, e *Executor) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for e.stats.voiders.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d background deletions still running", e.stats.voiders.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestExecutor_voidGUID_anySession checks the clean-up of a create whose
// outcome is unknown: the create may have been queued across a session
// expiry and landed in a session newer than the one it was issued in, so
// the node must be deleted whatever its session (here another conn's), and
// the clean-up must end once no node carries the GUID.
func TestExecutor_voidGUID_anySession(t *testing.T) {
	addr := server(t)
	e := newExecutor(t, dial(t, testSession, addr), Options{})
	other := dial(t, testSession, addr)
	parent := e.keyPath("void-guid:" + t.Name())
	if err := e.ensureParent(parent); err != nil {
		t.Fatal(err)
	}
	guid := newGUID()
	path, err := other.Create(lockPrefix(parent, guid, lockName), nil, zk.FlagEphemeralSequential, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	ok, st, gone, err := other.ExistsW(path)
	if err != nil || !ok || st.EphemeralOwner == e.conn.SessionID() {
		t.Fatalf("node %s: exists %v, %v; want it in another session", path, ok, err)
	}
	e.voidGUID(parent, guid)
	select {
	case ev := <-gone:
		if ev.Type != zk.EventNodeDeleted {
			t.Fatalf("node %s: %v, want deleted", path, ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("node %s of another session not voided", path)
	}
	awaitNoReapers(t, e)
}

// TestExecutor_void_connClosed closes the conn under an executor that
// still has deletions to retry: a closed conn keeps its session id, and the
// clean-ups must stop rather than retry until the executor closes. The
// session ended with the conn, and its nodes with it.
func TestExecutor_void_connClosed(t *testing.T) {
	conn := dial(t, testSession, server(t))
	e := newExecutor(t, conn, Options{})
	parent := e.keyPath("void-closed:" + t.Name())
	conn.Close()
	e.voidPath(parent+"/node", 0)
	e.voidPath(parent+"/node", conn.SessionID())
	e.voidGUID(parent, newGUID())
	if n := e.stats.voiders.Load(); n != 3 {
		t.Fatalf("%d background deletions running, want 3", n)
	}
	awaitNoReapers(t, e)
}
