package etcd

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
)

// IsOwner returns the comparison that holds exactly while l holds its lock:
// its entry's create revision equals the lock's token. Put it in the If of
// your own transaction to make a write conditional on still holding the
// lock (the fenced-write pattern, see the package documentation). l must
// come from an etcd [Executor]; otherwise IsOwner returns an error wrapping
// [executor.ErrInvalidConfig].
func IsOwner(l executor.Lease) (clientv3.Cmp, error) {
	el, ok := l.(*lease)
	if !ok {
		return clientv3.Cmp{}, fmt.Errorf("etcd: IsOwner: %T is not an etcd lease: %w", l, executor.ErrInvalidConfig)
	}
	return el.isOwner(), nil
}

// OwnerCmp is [IsOwner] for callers that know a lock only by its key and
// fencing token, such as a lock4go.Lock (Key and Token): it looks up the
// entry of key with create revision token and returns the comparison that
// holds while that entry exists. It returns an error wrapping
// [executor.ErrLockNotHeld] when no such entry exists now, or
// [executor.ErrBackend] when etcd cannot be reached. The comparison stays
// valid for the life of the lock, so look it up once per lock.
func (e *Executor) OwnerCmp(ctx context.Context, key string, token int64) (clientv3.Cmp, error) {
	q := newQueue(e.prefix + key)
	resp, err := e.c.Get(ctx, q.dir, clientv3.WithPrefix(), clientv3.WithKeysOnly(),
		clientv3.WithMinCreateRev(token), clientv3.WithMaxCreateRev(token))
	if err != nil {
		return clientv3.Cmp{}, opErr("owner", key, err)
	}
	kv := q.firstMember(resp.Kvs)
	if kv == nil || token <= 0 {
		return clientv3.Cmp{}, fmt.Errorf("etcd: owner %q token %d: %w", key, token, executor.ErrLockNotHeld)
	}
	return clientv3.Compare(clientv3.CreateRevision(string(kv.Key)), "=", token), nil
}
