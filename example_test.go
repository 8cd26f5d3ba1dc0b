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

func ExampleTemplate_LockAll() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	// A transfer locks both accounts; another transfer between the same
	// accounts in the other direction takes them in the same order.
	l, err := tpl.LockAll(ctx, []string{"account:B", "account:A"})
	if err != nil {
		panic(err)
	}
	defer l.Release(ctx)
	for _, k := range l.Keys() {
		fmt.Println(k, "token", l.TokenOf(k))
	}
	_, err = tpl.LockAll(ctx, []string{"account:A", "account:C"}, lock4go.NoWait())
	fmt.Println("overlapping set busy:", errors.Is(err, lock4go.ErrNotAcquired))
	// Output:
	// account:A token 1
	// account:B token 2
	// overlapping set busy: true
}

func ExampleTemplate_Lead() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	terms := 0
	err = tpl.Lead(ctx, "scheduler", func(ctx context.Context) error {
		// Lead here until ctx ends (shutdown, or ErrLockLost). Returning nil
		// steps down and campaigns again.
		terms++
		fmt.Println("leading, token", lock4go.LockFrom(ctx, "scheduler").Token())
		if terms == 2 {
			stop() // shut down
		}
		return nil
	})
	fmt.Println("Lead returned:", err)
	// Output:
	// leading, token 1
	// leading, token 2
	// Lead returned: context canceled
}

func ExampleLocked() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	type refund struct{ OrderID string }
	// keybuilder.Fields[refund]("lock4go", "refund", []string{"OrderID"})
	// builds such keys from struct fields, escaped like HTTP keys.
	key := func(r refund) (string, error) { return "refund:" + r.OrderID, nil }
	issue := lock4go.Locked(tpl, key, func(ctx context.Context, r refund) (string, error) {
		return "refunded " + r.OrderID, nil
	}, lock4go.NoWait())

	out, err := issue(context.Background(), refund{OrderID: "42"})
	fmt.Println(out, err)
	// Output:
	// refunded 42 <nil>
}

func ExampleShared() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	// Readers hold the key together; a writer waits for all of them.
	r1, _ := tpl.Lock(ctx, "doc:7", lock4go.Shared())
	r2, _ := tpl.Lock(ctx, "doc:7", lock4go.Shared())
	_, err = tpl.TryLock(ctx, "doc:7")
	fmt.Println("writer while two readers hold:", errors.Is(err, lock4go.ErrNotAcquired))
	r1.Release(ctx)
	r2.Release(ctx)

	// Inside the write lock, a read of the same key re-enters it.
	err = tpl.Do(ctx, "doc:7", func(ctx context.Context) error {
		r, err := tpl.Lock(ctx, "doc:7", lock4go.Shared())
		if err != nil {
			return err
		}
		return r.Release(ctx)
	})
	fmt.Println("read inside write:", err)
	// Output:
	// writer while two readers hold: true
	// read inside write: <nil>
}

func ExampleWithPermits() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	three := lock4go.WithPermits(3)
	for i := range 4 {
		l, err := tpl.TryLock(ctx, "gpu-pool", three)
		if err != nil {
			fmt.Println("permit", i+1, "busy:", errors.Is(err, lock4go.ErrNotAcquired))
			continue
		}
		defer l.Release(ctx)
		fmt.Println("permit", i+1, "held")
	}
	// Output:
	// permit 1 held
	// permit 2 held
	// permit 3 held
	// permit 4 busy: true
}
