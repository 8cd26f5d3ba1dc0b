package bench

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// RawEtcd is the etcd floor: a transaction that puts key if it does not
// exist, then a transaction that deletes it if it is still this put's (one
// round trip each, no lease, no waiting).
func RawEtcd(c *clientv3.Client) *Subject {
	return &Subject{
		Name: "raw etcd", Backend: Etcd, Kind: KindRaw,
		Note: "txn put-if-absent + txn delete-if-same-revision",
		newLocker: shared(LockerFunc(func(ctx context.Context, key string) (Unlock, error) {
			r, err := c.Txn(ctx).
				If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
				Then(clientv3.OpPut(key, owner())).Commit()
			if err != nil {
				return nil, err
			}
			if !r.Succeeded {
				return nil, errBusy
			}
			rev := r.Header.Revision
			return func(ctx context.Context) error {
				d, err := c.Txn(ctx).
					If(clientv3.Compare(clientv3.CreateRevision(key), "=", rev)).
					Then(clientv3.OpDelete(key)).Commit()
				if err == nil && !d.Succeeded {
					err = fmt.Errorf("release of %q: not held", key)
				}
				return err
			}, nil
		})),
	}
}

// EtcdMutex is etcd's own concurrency.Mutex. Each contender has a session
// of its own (one lease, kept alive), reused for every acquisition: a
// session is a lock owner, so contenders cannot share one.
func EtcdMutex(c *clientv3.Client) *Subject {
	s := &Subject{
		Name: "etcd concurrency.Mutex", Backend: Etcd, Kind: KindPeer, Waits: true,
		Note: "revision queue, watch on predecessor; session per contender",
	}
	var sessions []*concurrency.Session
	s.newLocker = func(int) (Locker, error) {
		sess, err := concurrency.NewSession(c)
		if err != nil {
			return nil, err
		}
		sessions = append(sessions, sess) // newLocker runs under s.mu
		return LockerFunc(func(ctx context.Context, key string) (Unlock, error) {
			m := concurrency.NewMutex(sess, key)
			if err := m.Lock(ctx); err != nil {
				return nil, err
			}
			return m.Unlock, nil
		}), nil
	}
	s.close = func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, sess := range sessions {
			_ = sess.Close()
		}
		sessions = nil
		return nil
	}
	return s
}
