package middleware_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/executors/memory"
	"github.com/lock4go/lock4go/keybuilder"
	"github.com/lock4go/lock4go/middleware"
)

// One payment per order at a time: a second request for an order that is
// being paid gets 429 at once, other orders go ahead.
func ExampleHTTP() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	locked := middleware.HTTP(tpl, middleware.Spec{
		Keys:           []string{"path.id"}, // key "lock4go:POST /orders/%7Bid%7D/pay#<id>"
		AcquireTimeout: middleware.NoWait,
	})

	inside, finish := make(chan struct{}), make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("POST /orders/{id}/pay", locked(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "42" {
			close(inside)
			<-finish
		}
		fmt.Fprintf(w, "paid order %s", r.PathValue("id"))
	})))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	pay := func(id string) {
		res, err := srv.Client().Post(srv.URL+"/orders/"+id+"/pay", "", nil)
		if err != nil {
			panic(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		fmt.Printf("order %s: %d %q retry-after=%q\n", id, res.StatusCode, body, res.Header.Get("Retry-After"))
	}

	first := make(chan struct{})
	go func() { pay("42"); close(first) }()
	<-inside // order 42 is being paid
	pay("42")
	pay("7")
	close(finish)
	<-first
	// Output:
	// order 42: 429 "request failed, please retry it." retry-after="1"
	// order 7: 200 "paid order 7" retry-after=""
	// order 42: 200 "paid order 42" retry-after=""
}

// One UnaryCall per order at a time, keyed on a request field; other methods
// pass through untouched.
func ExampleUnaryServerInterceptor() {
	tpl, err := lock4go.New(lock4go.Config{}, memory.New(memory.Options{}))
	if err != nil {
		panic(err)
	}
	const method = "/grpc.testing.TestService/UnaryCall"
	specs := map[string]middleware.Spec{
		method: {Keys: []string{"req.response_status.message"}, AcquireTimeout: middleware.NoWait},
	}
	srv := grpc.NewServer(
		grpc.UnaryInterceptor(middleware.UnaryServerInterceptor(tpl, specs)),
		grpc.StreamInterceptor(middleware.StreamServerInterceptor(tpl, specs)),
	)
	testpb.RegisterTestServiceServer(srv, &exampleService{})
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
	// order "": InvalidArgument: request failed, please retry it.
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
