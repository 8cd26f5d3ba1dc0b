package memory_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
)

// The memory executor serves tests and single-instance services: the same
// semantics as the networked executors, in one process.
func Example() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	l, err := tpl.Lock(ctx, "order:42", lock4go.WithExpire(time.Minute))
	if err != nil {
		panic(err)
	}
	_, err = tpl.TryLock(ctx, "order:42")
	fmt.Println("second holder:", errors.Is(err, lock4go.ErrNotAcquired))
	fmt.Println("release:", l.Release(ctx))
	// Output:
	// second holder: true
	// release: <nil>
}
