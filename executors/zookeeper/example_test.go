package zookeeper_test

import (
	"context"
	"errors"
	"log"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/zookeeper"
)

func Example() {
	conn, _, err := zookeeper.Dial([]string{"127.0.0.1:2181"}, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close() // after the executor's Close, deferred below

	// Share locks with Lock4j (Curator) services; zero Options use /lock4go.
	e, err := zookeeper.New(conn, zookeeper.Options{BasePath: zookeeper.Lock4jBasePath})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()

	// Usually a lock4go.Template drives the executor; directly, a waiting
	// acquisition queues in FIFO order until ctx ends.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	lease, err := e.Acquire(ctx, executor.Request{Key: "order:42", Owner: "worker-1", TTL: time.Minute, Wait: true})
	if errors.Is(err, executor.ErrNotAcquired) {
		log.Print("busy")
		return
	} else if err != nil {
		log.Fatal(err)
	}
	stop := lease.AfterLost(func() { log.Print("session expired: stop writing") })
	defer stop()
	log.Printf("holding order:42 with fencing token %d", lease.Token())
	if err := lease.Release(context.Background()); err != nil {
		log.Print(err)
	}
}

func ExampleDigestAuth() {
	conn, _, err := zookeeper.Dial([]string{"127.0.0.1:2181"}, 10*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Only sessions authenticated as "orders" can see or take these locks.
	acl, err := zookeeper.DigestAuth(ctx, conn, "orders", "s3cret")
	if err != nil {
		log.Fatal(err)
	}
	e, err := zookeeper.New(conn, zookeeper.Options{BasePath: "/orders/locks", ACL: acl})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
}
