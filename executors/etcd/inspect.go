package etcd

import (
	"context"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
)

// Inspect implements [executor.Inspector]. The holders are the oldest
// entry of key and, when it is a read lock or a permit, the readers (or
// the first n permits) right after it: each entry's value is the owner
// (empty for `etcdctl lock` and concurrency.Mutex, which store none), its
// create revision the token, its lease's remaining time the TTL (whole
// seconds, as etcd reports it; one TimeToLive per distinct lease). The
// other entries are the waiters (Holder.Waiters): one per executor
// waiting for a lock, one per call waiting for a read lock or permit.
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
	var members []*mvccpb.KeyValue
	for _, kv := range resp.Kvs {
		if q.member(kv.Key) {
			members = append(members, kv)
		}
	}
	if len(members) == 0 {
		return executor.Holder{}, fmt.Errorf("etcd: inspect %q: %w", key, executor.ErrLockNotHeld)
	}
	held, kind, permits := q.holders(members)
	hs := make([]executor.Holder, len(held))
	ttls := map[int64]time.Duration{}
	for i, kv := range held {
		hs[i] = executor.Holder{Owner: string(kv.Value), Token: kv.CreateRevision}
		if kv.Lease == 0 {
			continue
		}
		ttl, ok := ttls[kv.Lease]
		if !ok {
			r, err := e.c.TimeToLive(ctx, clientv3.LeaseID(kv.Lease))
			if err != nil {
				return executor.Holder{}, opErr("inspect", key, err)
			}
			ttl = max(time.Duration(r.TTL)*time.Second, 0)
			ttls[kv.Lease] = ttl
		}
		hs[i].TTL = ttl
	}
	return executor.NewHolder(kind, permits, hs, len(members)-len(held)), nil
}

// holders returns the members (in create order) that hold the key, and
// how: the first member, and the readers after it when it is a reader, or
// the first n permits when it is a permit of a semaphore of n.
func (q queue) holders(members []*mvccpb.KeyValue) ([]*mvccpb.KeyValue, executor.Kind, int) {
	if n := q.permits(members[0].Key); n > 0 {
		k := 0
		for k < len(members) && k < n && q.permits(members[k].Key) > 0 {
			k++
		}
		return members[:k], executor.KindPermits, n
	}
	if q.reader(members[0].Key) {
		k := 0
		for k < len(members) && q.reader(members[k].Key) {
			k++
		}
		return members[:k], executor.KindRead, 0
	}
	return members[:1], executor.KindLock, 0
}
