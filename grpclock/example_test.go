package grpclock_test

import (
	"context"
	"fmt"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/grpclock"
	"github.com/lock4go/lock4go/keybuilder"
)

// One UnaryCall per order at a time, keyed on a request field; other methods
// pass through untouched. New compiles the Specs, ServerOptions installs
// both interceptors, and Check refuses a Spec for a method the server does
// not have.
func ExampleNew() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	const method = "/grpc.testing.TestService/UnaryCall"
	locks, err := grpclock.New(tpl, map[string]grpclock.Spec{
		method: {Keys: []string{"req.response_status.message"}, NoWait: true},
	})
	if err != nil {
		panic(err)
	}
	srv := grpc.NewServer(locks.ServerOptions()...)
	testpb.RegisterTestServiceServer(srv, &exampleService{})
	if err := locks.Check(srv); err != nil {
		panic(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go srv.Serve(lis)
	defer srv.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	client := testpb.NewTestServiceClient(conn)

	ctx := context.Background()
	call := func(order string) {
		req := &testpb.SimpleRequest{}
		if order != "" {
			req.ResponseStatus = &testpb.EchoStatus{Message: order}
		}
		res, err := client.UnaryCall(ctx, req)
		if err != nil {
			st := status.Convert(err)
			fmt.Printf("order %q: %v: %s\n", order, st.Code(), st.Message())
			return
		}
		fmt.Printf("order %q: %s\n", order, res.GetUsername())
	}

	// Hold the order's lock by hand, with the key the interceptor builds.
	key, _ := keybuilder.Join(tpl.Config().KeyPrefix, method, "o-1")
	l, err := tpl.Lock(ctx, key)
	if err != nil {
		panic(err)
	}
	call("o-1")
	l.Release(ctx)
	call("o-1")
	call("")
	_, err = client.EmptyCall(ctx, &testpb.Empty{})
	fmt.Println("EmptyCall (no Spec):", err)
	// Output:
	// order "o-1": Aborted: request failed, please retry it.
	// order "o-1": processed o-1
	// order "": InvalidArgument: missing key part "req.response_status.message"
	// EmptyCall (no Spec): <nil>
}

type exampleService struct {
	testpb.UnimplementedTestServiceServer
}

func (exampleService) EmptyCall(context.Context, *testpb.Empty) (*testpb.Empty, error) {
	return &testpb.Empty{}, nil
}

func (exampleService) UnaryCall(_ context.Context, req *testpb.SimpleRequest) (*testpb.SimpleResponse, error) {
	return &testpb.SimpleResponse{Username: "processed " + req.GetResponseStatus().GetMessage()}, nil
}
