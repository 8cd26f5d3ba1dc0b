package etcd_test

import (
	"context"
	"errors"
	"log"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	lock4go "github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/etcd"
)

func Example() {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"127.0.0.1:2379"}, DialTimeout: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close() // after the executor's Close, deferred below

	// The zero Options lock keys as given, so `etcdctl lock order:42` and
	// this executor exclude each other.
	e, err := etcd.New(cli, etcd.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()

	tpl, err := lock4go.New(lock4go.Config{}, e)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	err = tpl.Do(ctx, "order:42", func(ctx context.Context) error {
		// ctx is cancelled if the lease is lost (revoked, or etcd out of
		// reach until the lease would end).
		return nil
	})
	if errors.Is(err, lock4go.ErrNotAcquired) {
		log.Print("busy")
	}
}

// The fenced-write pattern: a write to etcd that happens only while the
// lock is still held, in one transaction.
func ExampleExecutor_OwnerCmp() {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"127.0.0.1:2379"}, DialTimeout: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close()
	e, err := etcd.New(cli, etcd.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	tpl, err := lock4go.New(lock4go.Config{}, e)
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	l, err := tpl.Lock(ctx, "account:7")
	if err != nil {
		log.Fatal(err)
	}
	defer l.Release(ctx)

	isOwner, err := e.OwnerCmp(ctx, l.Key(), l.Token())
	if err != nil {
		log.Fatal(err) // ErrLockNotHeld: already lost
	}
	resp, err := cli.Txn(ctx).If(isOwner).Then(clientv3.OpPut("account:7/balance", "42")).Commit()
	if err != nil {
		log.Fatal(err)
	}
	if !resp.Succeeded {
		log.Print("lock lost before the write; nothing written")
	}
}
