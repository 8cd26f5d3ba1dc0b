package etcd

import (
	"bytes"
	"context"
	"strconv"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
)

// queue is the etcd layout of one lock, that of concurrency.Mutex: each
// contender writes an entry "<pfx>/<lease id in hex>" under its lease; the
// entry with the lowest create revision holds the lock, and each other one
// waits for the entry created just before it.
//
// Read locks add entries "<pfx>/read/<id>", the readers of etcd's recipes
// RWMutex, which also writes its writers as "<pfx>/write/<id>": a reader
// holds the lock while no writer entry (any other member) is older, and
// waits for the last writer before it.
//
// Lock keys may contain "/", so the range "<pfx>/" also holds the entries of
// longer keys ("a/" holds "a/b/<lease>", an entry of lock "a/b"). Only keys
// with no further "/" after "<pfx>/", "<pfx>/read/" or "<pfx>/write/" are
// members; the others are skipped, so a lock on "a" is never blocked by,
// nor confused with, a lock on "a/b" (but the entries of locks on "a/read"
// and "a/write" are taken for a's readers and writers, as the recipe does).
type queue struct {
	dir string // "<pfx>/"
}

// Sub-directories of a queue for the entries of etcd's recipes RWMutex,
// and the prefix of the sub-directory of a semaphore's permits
// ("permits-<n>/").
const (
	readDir    = "read/"
	writeDir   = "write/"
	permitsDir = "permits-"
)

// permitEntry returns the key of a permit's entry of a semaphore of n under
// lease id in slot: "<pfx>/permits-<n>/<lease hex>-<slot>" (see readEntry).
func (q queue) permitEntry(n int, id clientv3.LeaseID, slot int) string {
	return q.dir + permitsDir + strconv.Itoa(n) + "/" + strconv.FormatInt(int64(id), 16) + "-" + strconv.Itoa(slot)
}

// permits returns the semaphore size of the member k if it is a permit's
// entry, and 0 otherwise.
func (q queue) permits(k []byte) int {
	rest := k[len(q.dir):]
	if !bytes.HasPrefix(rest, []byte(permitsDir)) {
		return 0
	}
	rest = rest[len(permitsDir):]
	i := bytes.IndexByte(rest, '/')
	if i <= 0 {
		return 0
	}
	n, err := strconv.Atoi(string(rest[:i]))
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// readEntry returns the key of a read lock's entry under lease id in slot:
// "<pfx>/read/<lease hex>-<slot>". One process may hold many read locks
// of a key under its shared lease, so each takes a slot: the lowest not in
// use by another attempt, hold or clean-up of this process (see
// [Executor.lockEntry]). A slot is used again once its last entry is known
// deleted: etcd keeps every key name ever written in its index until a
// compaction, and every acquisition reads the key's queue, walking all of
// them, so a name per acquisition would slow each read lock down with every
// read lock taken before it (docs/etcd.md, "Leases"). The owner is the
// entry's value.
func (q queue) readEntry(id clientv3.LeaseID, slot int) string {
	return q.dir + readDir + strconv.FormatInt(int64(id), 16) + "-" + strconv.Itoa(slot)
}

// writeEntry returns the key of a lock's entry under lease id in the layout
// of the recipe RWMutex's writers (Options.RWLockLayout).
func (q queue) writeEntry(id clientv3.LeaseID) string {
	return q.dir + writeDir + strconv.FormatInt(int64(id), 16)
}

// entryLockName names req's entry among this process's turns on entries
// (entryLocks): the queue's for a lock, whose entry is the lease's, and
// the slot's for a read lock or permit.
func (q queue) entryLockName(req executor.Request, slot int) string {
	switch {
	case req.Shared:
		return q.readEntry(0, slot)
	case req.Permits > 0:
		return q.permitEntry(req.Permits, 0, slot)
	}
	return q.dir
}

// slotted reports whether req's entries take slots: read locks and
// permits.
func slotted(req executor.Request) bool { return req.Shared || req.Permits > 0 }

// reader reports whether the member k is a read lock's entry.
func (q queue) reader(k []byte) bool {
	return bytes.HasPrefix(k[len(q.dir):], []byte(readDir))
}

func newQueue(pfx string) queue { return queue{dir: pfx + "/"} }

// entry returns the key of the entry of lease id, exactly as
// concurrency.Mutex spells it (fmt.Sprintf("%s/%x", pfx, id)).
func (q queue) entry(id clientv3.LeaseID) string {
	return q.dir + strconv.FormatInt(int64(id), 16)
}

// member reports whether k is an entry of this queue, not of a longer key.
func (q queue) member(k []byte) bool {
	if len(k) <= len(q.dir) || !bytes.HasPrefix(k, []byte(q.dir)) {
		return false
	}
	rest := k[len(q.dir):]
	for _, sub := range [...]string{readDir, writeDir} {
		if bytes.HasPrefix(rest, []byte(sub)) && len(rest) > len(sub) {
			rest = rest[len(sub):]
			break
		}
	}
	if q.permits(k) > 0 {
		rest = rest[bytes.IndexByte(rest, '/')+1:]
	}
	return bytes.IndexByte(rest, '/') < 0
}

// firstMember returns the first member of kvs, or nil.
func (q queue) firstMember(kvs []*mvccpb.KeyValue) *mvccpb.KeyValue {
	return q.firstBlocker(kvs, false)
}

// firstBlocker returns the first member of kvs that blocks an entry: any
// member, or for a read lock (shared) only a writer's; nil if none.
func (q queue) firstBlocker(kvs []*mvccpb.KeyValue, shared bool) *mvccpb.KeyValue {
	for _, kv := range kvs {
		if q.member(kv.Key) && (!shared || !q.reader(kv.Key)) {
			return kv
		}
	}
	return nil
}

// headOp reads the oldest key of the range (members or not), keys only.
func (q queue) headOp() clientv3.Op {
	return clientv3.OpGet(q.dir, append(clientv3.WithFirstCreate(), clientv3.WithKeysOnly())...)
}

// place says where an entry stands after a write or a read of the head.
type place int

const (
	unknown place = iota // the head read showed only keys of longer locks
	first                // the own entry is the oldest member: the lock is held
	behind               // another member is older
)

// placeOf classifies the own entry of create revision rev against the head
// read of the range.
func (q queue) placeOf(rev int64, head []*mvccpb.KeyValue) place {
	kv := q.firstMember(head)
	switch {
	case kv == nil:
		return unknown
	case kv.CreateRevision == rev:
		return first
	default:
		return behind
	}
}

// position is a read of the queue from the own entry's point of view.
type position struct {
	// blockers are the members the own entry waits for, newest first: the
	// member created last before it (for a read lock, the writer created
	// last before it), and when that is a reader, for a writer, every
	// reader before it back to the first older writer, which is included.
	// Empty when the own entry holds the lock.
	blockers []*mvccpb.KeyValue
	at       int64 // the revision of the read
	size     int64 // keys in the range, longer locks' included
}

// pred returns the blocker created last, or nil.
func (t position) pred() *mvccpb.KeyValue {
	if len(t.blockers) == 0 {
		return nil
	}
	return t.blockers[0]
}

// blockerPage is the page of the reads after the first: of the members
// created before an entry, newest first.
const blockerPage = 64

// newestOp reads the newest page of the range, keys only: the own entry
// just written, and the blockerPage keys created before it (enqueue).
func (q queue) newestOp() clientv3.Op {
	return clientv3.OpGet(q.dir, clientv3.WithPrefix(), clientv3.WithKeysOnly(), clientv3.WithLimit(blockerPage+1),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortDescend))
}

// positionIn returns the position of the own entry of create revision rev
// from rr, the newest page of the range read at revision at (newestOp),
// or nil when the page does not reach back far enough to hold all its
// blockers (see position.blockers; shared is a read lock's).
func (q queue) positionIn(rr *etcdserverpb.RangeResponse, rev, at int64, shared bool) *position {
	t := &position{at: at, size: rr.Count}
	var older []*mvccpb.KeyValue
	for i, kv := range rr.Kvs {
		if kv.CreateRevision < rev {
			older = rr.Kvs[i:]
			break
		}
	}
	if t.addBlockers(q, older, shared) || !rr.More {
		return t
	}
	return nil
}

// blockers reads the blockers of the own entry of create revision rev
// (see position.blockers; shared is a read lock's wait). Every read also checks
// that the own entry still has create revision rev, so a lease that expired
// or was revoked while waiting is never mistaken for the lock (the Jepsen
// etcd 3.4.3 finding); it fails with errEntryGone then. A plain queue costs
// one read of one key (limit 1); a writer behind readers reads on, in
// pages of blockerPage. A re-read of readers known to block a writer
// starts with limit blockerPage: one round trip.
func (e *Executor) blockers(ctx context.Context, q queue, own string, rev int64, shared bool, limit int64) (position, error) {
	below := rev
	var t position
	for {
		opts := []clientv3.OpOption{
			clientv3.WithPrefix(), clientv3.WithKeysOnly(), clientv3.WithLimit(limit),
			clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortDescend),
			clientv3.WithMaxCreateRev(below - 1),
		}
		resp, err := e.c.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(own), "=", rev)).
			Then(clientv3.OpGet(q.dir, opts...)).
			Commit()
		if err != nil {
			return position{}, err
		}
		if !resp.Succeeded {
			return position{}, errEntryGone
		}
		rr := resp.Responses[0].GetResponseRange()
		if t.at == 0 {
			t.at = resp.Header.Revision
			t.size = rr.Count // etcd counts the range before the revision filter
		}
		if t.addBlockers(q, rr.Kvs, shared) {
			return t, nil
		}
		if !rr.More || len(rr.Kvs) == 0 || rr.Kvs[len(rr.Kvs)-1].CreateRevision <= 1 {
			return t, nil
		}
		// A page of longer locks' entries, of readers for a reader, or of
		// readers a writer waits for: read on, in larger pages.
		below, limit = rr.Kvs[len(rr.Kvs)-1].CreateRevision, blockerPage
	}
}

// addBlockers adds the blockers among kvs (a page of the range, newest
// first) and reports whether the set is complete: a read lock waits for
// the last writer before it only; a writer for the member created last
// before it and, when that is a reader, for every reader before it back to
// the first older writer.
func (t *position) addBlockers(q queue, kvs []*mvccpb.KeyValue, shared bool) bool {
	for _, kv := range kvs {
		if !q.member(kv.Key) || (shared && q.reader(kv.Key)) {
			continue
		}
		t.blockers = append(t.blockers, kv)
		if shared || !q.reader(kv.Key) {
			return true
		}
	}
	return false
}
