package grpclock

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	testpb "google.golang.org/grpc/interop/grpc_testing"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
)

const unaryCall = "/grpc.testing.TestService/UnaryCall"

// TestLocks_unary_panicReleases checks that a handler's panic goes on and
// the lock is released all the same.
func TestLocks_unary_panicReleases(t *testing.T) {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	locks, err := New(tpl, map[string]Spec{unaryCall: {Keys: []string{"req.response_status.message"}, NoWait: true}})
	if err != nil {
		t.Fatal(err)
	}
	info := &grpc.UnaryServerInfo{FullMethod: unaryCall}
	req := &testpb.SimpleRequest{ResponseStatus: &testpb.EchoStatus{Message: "p"}}
	func() {
		defer func() {
			if recover() != "boom" {
				t.Fatal("the panic did not go on")
			}
		}()
		locks.unary(t.Context(), req, info, func(context.Context, any) (any, error) { panic("boom") })
	}()
	resp, err := locks.unary(t.Context(), req, info, func(context.Context, any) (any, error) { return "ok", nil })
	if err != nil || resp != "ok" {
		t.Fatalf("after the panic: %v, %v", resp, err)
	}
	if n := tpl.HeldLocks(); n != 0 {
		t.Fatalf("%d locks held", n)
	}
}
