package etcd

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
)

// Inspect implements [executor.Inspector]. The holder is the oldest entry
// of key: its value is the owner (empty for `etcdctl lock` and
// concurrency.Mutex, which store none), its create revision the token, its
// lease's remaining time the TTL (whole seconds, as etcd reports it), and
// the other entries are the waiters.
func (e *Executor) Inspect(ctx context.Context, key string) (executor.Holder, error) {
	if e.isClosed() {
		return executor.Holder{}, e.closedErr("inspect", key)
	}
	q := newQueue(e.prefix + key)
	resp, err := e.c.Get(ctx, q.dir, clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend))
	if err != nil {
		return executor.Holder{}, opErr("inspect", key, err)
	}
	var members, shared int
	var head *executor.Holder
	var leaseID int64
	var firstKey string
	readers := true // the members so far are all readers
	for _, kv := range resp.Kvs {
		if !q.member(kv.Key) {
			continue
		}
		members++
		if readers = readers && (q.reader(kv.Key) || q.permits(kv.Key) > 0); readers {
			shared++
		}
		if head == nil {
			head = &executor.Holder{Owner: string(kv.Value), Token: kv.CreateRevision}
			leaseID, firstKey = kv.Lease, string(kv.Key)
		}
	}
	if head == nil {
		return executor.Holder{}, fmt.Errorf("etcd: inspect %q: %w", key, executor.ErrLockNotHeld)
	}
	if n := q.permits([]byte(firstKey)); n > 0 {
		shared = min(shared, n) // the first n permits are held, the others wait
	}
	head.Shared = shared
	head.Waiters = members - max(shared, 1)
	if leaseID != 0 {
		ttl, err := e.c.TimeToLive(ctx, clientv3.LeaseID(leaseID))
		if err != nil {
			return executor.Holder{}, opErr("inspect", key, err)
		}
		if ttl.TTL > 0 {
			head.TTL = time.Duration(ttl.TTL) * time.Second
		}
	}
	return *head, nil
}
