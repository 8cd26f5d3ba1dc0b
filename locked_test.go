package lock4go_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
)

type chargeReq struct{ OrderID string }

func orderKey(r chargeReq) (string, error) {
	if r.OrderID == "" {
		return "", fmt.Errorf("no order id: %w", lock4go.ErrInvalidKey)
	}
	return "order:" + r.OrderID, nil
}

func TestLocked(t *testing.T) {
	tpl, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	inside := make(chan struct{})
	leave := make(chan struct{})
	calls := 0
	charge := lock4go.Locked(tpl, orderKey, func(ctx context.Context, r chargeReq) (string, error) {
		calls++
		if r.OrderID == "slow" {
			close(inside)
			<-leave
		}
		if r.OrderID == "fail" {
			return "", errors.New("declined")
		}
		if lock4go.LockFrom(ctx, "order:"+r.OrderID) == nil {
			return "", errors.New("fn's context does not carry the lock")
		}
		return "receipt:" + r.OrderID, nil
	}, lock4go.NoWait())

	ctx := t.Context()
	if got, err := charge(ctx, chargeReq{"7"}); err != nil || got != "receipt:7" {
		t.Fatalf("charge = %q, %v", got, err)
	}
	if _, err := charge(ctx, chargeReq{"fail"}); err == nil || err.Error() != "declined" {
		t.Fatalf("fn's error = %v, want declined", err)
	}
	n := calls
	if _, err := charge(ctx, chargeReq{}); !errors.Is(err, lock4go.ErrInvalidKey) || calls != n {
		t.Fatalf("key error = %v (fn called: %v), want ErrInvalidKey without a call", err, calls != n)
	}

	// A second call on a held key gets ErrNotAcquired (no waiting).
	done := make(chan error, 1)
	go func() { _, err := charge(ctx, chargeReq{"slow"}); done <- err }()
	<-inside
	if _, err := charge(ctx, chargeReq{"slow"}); !errors.Is(err, lock4go.ErrNotAcquired) {
		t.Fatalf("concurrent call = %v, want ErrNotAcquired", err)
	}
	close(leave)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if tpl.HeldLocks() != 0 {
		t.Fatalf("HeldLocks = %d", tpl.HeldLocks())
	}
}

func TestLocked_nilArguments(t *testing.T) {
	tpl, _ := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	fn := func(context.Context, chargeReq) (int, error) { return 1, nil }
	for _, f := range []func(context.Context, chargeReq) (int, error){
		lock4go.Locked(nil, orderKey, fn),
		lock4go.Locked(tpl, nil, fn),
		lock4go.Locked[chargeReq, int](tpl, orderKey, nil),
	} {
		if _, err := f(t.Context(), chargeReq{"1"}); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("call = %v, want ErrInvalidConfig", err)
		}
	}
}
