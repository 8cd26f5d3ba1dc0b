package lock4go_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
)

func ExampleTemplate_Lock() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	l, err := tpl.Lock(ctx, "order:42", lock4go.WithAcquireTimeout(time.Second))
	if err != nil {
		panic(err)
	}
	fmt.Println("held:", l.Key(), "token:", l.Token(), "executor:", l.Executor())

	// A second caller finds it busy.
	_, err = tpl.Lock(ctx, "order:42", lock4go.WithAcquireTimeout(50*time.Millisecond))
	fmt.Println("second caller busy:", errors.Is(err, lock4go.ErrNotAcquired))

	if err := l.Release(ctx); err != nil {
		panic(err)
	}
	fmt.Println("released; releasing again is ErrLockNotHeld:", errors.Is(l.Release(ctx), lock4go.ErrLockNotHeld))
	// Output:
	// held: order:42 token: 1 executor: memory
	// second caller busy: true
	// released; releasing again is ErrLockNotHeld: true
}

func ExampleTemplate_Do() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	err = tpl.Do(context.Background(), "batch:nightly", func(ctx context.Context) error {
		// ctx is cancelled with cause ErrLockLost if the lock is lost here.
		// A nested call with ctx re-enters instead of deadlocking.
		return tpl.Do(ctx, "batch:nightly", func(context.Context) error {
			fmt.Println("nested call re-entered the lock")
			return nil
		})
	})
	fmt.Println("err:", err)
	// Output:
	// nested call re-entered the lock
	// err: <nil>
}

func ExampleTemplate_TryLock() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	first, err := tpl.TryLock(ctx, "job:report")
	if err != nil {
		panic(err)
	}
	defer first.Release(ctx)

	_, err = tpl.TryLock(ctx, "job:report")
	var aerr *lock4go.AcquireError
	if errors.As(err, &aerr) {
		fmt.Println("busy:", aerr.Key, errors.Is(err, lock4go.ErrNotAcquired))
	}
	// Output:
	// busy: job:report true
}
