package etcd

import (
	"bytes"
	"strconv"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// queue is the etcd layout of one lock, that of concurrency.Mutex: each
// contender writes an entry "<pfx>/<lease id in hex>" under its lease; the
// entry with the lowest create revision holds the lock, and each other one
// waits for the entry created just before it.
//
// Lock keys may contain "/", so the range "<pfx>/" also holds the entries of
// longer keys ("a/" holds "a/b/<lease>", an entry of lock "a/b"). Only keys
// with no further "/" after "<pfx>/" are members; the others are skipped,
// so a lock on "a" is never blocked by, nor confused with, a lock on "a/b".
type queue struct {
	dir string // "<pfx>/"
}

func newQueue(pfx string) queue { return queue{dir: pfx + "/"} }

// entry returns the key of the entry of lease id, exactly as
// concurrency.Mutex spells it (fmt.Sprintf("%s/%x", pfx, id)).
func (q queue) entry(id clientv3.LeaseID) string {
	return q.dir + strconv.FormatInt(int64(id), 16)
}

// member reports whether k is an entry of this queue, not of a longer key.
func (q queue) member(k []byte) bool {
	return len(k) > len(q.dir) && bytes.HasPrefix(k, []byte(q.dir)) && bytes.IndexByte(k[len(q.dir):], '/') < 0
}

// firstMember returns the first member of kvs, or nil.
func (q queue) firstMember(kvs []*mvccpb.KeyValue) *mvccpb.KeyValue {
	for _, kv := range kvs {
		if q.member(kv.Key) {
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
