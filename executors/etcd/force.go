package etcd

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/lock4go/lock4go/executor"
)

// ForceRelease implements [executor.ForceReleaser]: it deletes the oldest
// entry of key if it is still h's (create revision h.Token, value h.Owner),
// in a transaction guarded by that create revision, so a newer holder is
// never touched. Waiters wake as on a release. The holder's etcd lease is
// left alone: revoking it would end every other lock it carries (lock4go
// shares one lease per process and TTL). So the holder is not told: a
// lock4go lock renewed by the watchdog, concurrency.Mutex and `etcdctl lock`
// keep running until they release (and their release then reports
// [executor.ErrLockNotHeld]); revoke their lease to stop them.
func (e *Executor) ForceRelease(ctx context.Context, key string, h executor.Holder) error {
	if key == "" {
		return fmt.Errorf("etcd: force release: empty key: %w", executor.ErrInvalidKey)
	}
	if e.isClosed() {
		return e.closedErr("force release", key)
	}
	q := newQueue(e.prefix + key)
	resp, err := e.c.Get(ctx, q.dir, clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend))
	if err != nil {
		return opErr("force release", key, err)
	}
	head := q.firstMember(resp.Kvs)
	if head == nil || head.CreateRevision != h.Token || string(head.Value) != h.Owner {
		return fmt.Errorf("etcd: force release %q: %w", key, executor.ErrLockNotHeld)
	}
	entry := string(head.Key)
	txn, err := e.c.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(entry), "=", h.Token)).
		Then(clientv3.OpDelete(entry)).Commit()
	if err != nil {
		return opErr("force release", key, err)
	}
	if !txn.Succeeded {
		return fmt.Errorf("etcd: force release %q: %w", key, executor.ErrLockNotHeld)
	}
	return nil
}
