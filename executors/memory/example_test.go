package memory_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/executors/memory"
)

// The executor on its own, as a Template drives it: an expiring lease whose
// loss is reported, and a key free again afterwards. Services use it
// through lock4go.New.
func Example() {
	e := memory.New(memory.Options{})
	ctx := context.Background()
	lease, err := e.Acquire(ctx, executor.Request{Key: "job:nightly", Owner: "worker-1", TTL: 20 * time.Millisecond})
	if err != nil {
		panic(err)
	}
	lost := make(chan struct{})
	lease.AfterLost(func() { close(lost) })

	_, err = e.Acquire(ctx, executor.Request{Key: "job:nightly", Owner: "worker-2", TTL: time.Second})
	fmt.Println("busy:", errors.Is(err, executor.ErrNotAcquired))

	<-lost // the lease ran out: nobody renewed it
	fmt.Println("release after expiry:", errors.Is(lease.Release(ctx), executor.ErrLockNotHeld))
	next, err := e.Acquire(ctx, executor.Request{Key: "job:nightly", Owner: "worker-2", TTL: time.Second})
	fmt.Println("free again:", err == nil, next.Token() > lease.Token())
	// Output:
	// busy: true
	// release after expiry: true
	// free again: true true
}
