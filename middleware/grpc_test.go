package middleware_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/failure"
	"github.com/lock4go/lock4go/middleware"
)

const (
	unaryCall  = "/grpc.testing.TestService/UnaryCall"
	streamCall = "/grpc.testing.TestService/StreamingOutputCall"
	duplexCall = "/grpc.testing.TestService/FullDuplexCall"
)

// testService blocks calls flagged with ResponseSize 1 until gate closes,
// and counts runs and overlaps per call kind.
type testService struct {
	testpb.UnimplementedTestServiceServer
	runs, inflight, overlaps atomic.Int32
	entered                  chan struct{}
	gate                     chan struct{}
}

func newService() *testService {
	return &testService{entered: make(chan struct{}, 100), gate: make(chan struct{})}
}

func (s *testService) run(ctx context.Context, block bool) {
	s.runs.Add(1)
	if s.inflight.Add(1) > 1 {
		s.overlaps.Add(1)
	}
	defer s.inflight.Add(-1)
	s.entered <- struct{}{}
	if block {
		select {
		case <-s.gate:
		case <-ctx.Done():
		}
	}
}

func (s *testService) EmptyCall(context.Context, *testpb.Empty) (*testpb.Empty, error) {
	return &testpb.Empty{}, nil
}

func (s *testService) UnaryCall(ctx context.Context, req *testpb.SimpleRequest) (*testpb.SimpleResponse, error) {
	s.run(ctx, req.GetResponseSize() == 1)
	return &testpb.SimpleResponse{Username: req.GetResponseStatus().GetMessage()}, nil
}

func (s *testService) StreamingOutputCall(req *testpb.StreamingOutputCallRequest, ss grpc.ServerStreamingServer[testpb.StreamingOutputCallResponse]) error {
	s.run(ss.Context(), req.GetResponseType() == testpb.PayloadType(1))
	return ss.Send(&testpb.StreamingOutputCallResponse{})
}

func (s *testService) FullDuplexCall(ss grpc.BidiStreamingServer[testpb.StreamingOutputCallRequest, testpb.StreamingOutputCallResponse]) error {
	s.run(ss.Context(), false)
	return nil
}

// serveGRPC starts a real server on a loopback port with both interceptors.
func serveGRPC(t *testing.T, e *env, svc *testService, specs map[string]middleware.Spec) testpb.TestServiceClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(
		grpc.UnaryInterceptor(middleware.UnaryServerInterceptor(e.tpl, specs)),
		grpc.StreamInterceptor(middleware.StreamServerInterceptor(e.tpl, specs)),
	)
	testpb.RegisterTestServiceServer(srv, svc)
	go srv.Serve(lis)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		srv.Stop()
	})
	return testpb.NewTestServiceClient(conn)
}

func order(id string, block bool) *testpb.SimpleRequest {
	r := &testpb.SimpleRequest{ResponseStatus: &testpb.EchoStatus{Message: id}}
	if block {
		r.ResponseSize = 1
	}
	return r
}

func wantStatus(t *testing.T, err error, code codes.Code) {
	t.Helper()
	st, _ := status.FromError(err)
	if st.Code() != code || st.Message() != failure.DefaultMessage {
		t.Fatalf("err = %v, want %v with the default message", err, code)
	}
}

var unarySpecs = map[string]middleware.Spec{
	unaryCall: {Keys: []string{"req.response_status.message"}, AcquireTimeout: middleware.NoWait},
}

func TestGRPC_Unary_sameKey(t *testing.T) {
	e := newEnv(t)
	svc := newService()
	client := serveGRPC(t, e, svc, unarySpecs)
	const n = 20
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := client.UnaryCall(t.Context(), order("o1", true))
			errs <- err
		}()
	}
	for range n - 1 {
		wantStatus(t, <-errs, codes.Aborted)
	}
	close(svc.gate)
	if err := <-errs; err != nil {
		t.Fatalf("the holder got %v", err)
	}
	if svc.runs.Load() != 1 || svc.overlaps.Load() != 0 {
		t.Fatalf("%d runs, %d overlaps; want 1 and 0", svc.runs.Load(), svc.overlaps.Load())
	}
}

func TestGRPC_Unary_wait(t *testing.T) {
	e := newEnv(t)
	svc := newService()
	close(svc.gate)
	client := serveGRPC(t, e, svc, map[string]middleware.Spec{
		unaryCall: {Keys: []string{"req.response_status.message"}, AcquireTimeout: 20 * time.Second},
	})
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := client.UnaryCall(t.Context(), order("o1", false)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if svc.runs.Load() != 20 || svc.overlaps.Load() != 0 {
		t.Fatalf("%d runs, %d overlaps; want 20 and 0", svc.runs.Load(), svc.overlaps.Load())
	}
}

func TestGRPC_Unary_differentKeys(t *testing.T) {
	e := newEnv(t)
	svc := newService()
	client := serveGRPC(t, e, svc, unarySpecs)
	errs := make(chan error, 2)
	for _, id := range []string{"a", "b"} {
		go func() {
			_, err := client.UnaryCall(t.Context(), order(id, true))
			errs <- err
		}()
	}
	<-svc.entered
	<-svc.entered // both inside at once
	close(svc.gate)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func TestGRPC_Unary_missingKey(t *testing.T) {
	e := newEnv(t)
	svc := newService()
	client := serveGRPC(t, e, svc, unarySpecs)
	_, err := client.UnaryCall(t.Context(), &testpb.SimpleRequest{})
	wantStatus(t, err, codes.InvalidArgument)
	if svc.runs.Load() != 0 {
		t.Fatal("the handler ran without a key")
	}
}

func TestGRPC_Unary_backendDown(t *testing.T) {
	e := newEnv(t, downExecutor{})
	svc := newService()
	client := serveGRPC(t, e, svc, map[string]middleware.Spec{
		unaryCall: {Keys: []string{"req.response_status.message"}, AcquireTimeout: 50 * time.Millisecond, RetryInterval: 10 * time.Millisecond},
	})
	_, err := client.UnaryCall(t.Context(), order("o1", false))
	wantStatus(t, err, codes.Unavailable)
	if svc.runs.Load() != 0 {
		t.Fatal("the handler ran without the lock")
	}
}

// recvErr opens a StreamingOutputCall and returns the stream's final error.
func recvErr(ctx context.Context, client testpb.TestServiceClient, orderID string, block bool) error {
	if orderID != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "x-order-id", orderID)
	}
	req := &testpb.StreamingOutputCallRequest{}
	if block {
		req.ResponseType = 1
	}
	stream, err := client.StreamingOutputCall(ctx, req)
	if err != nil {
		return err
	}
	for {
		if _, err := stream.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func TestGRPC_Stream_metadataKey(t *testing.T) {
	e := newEnv(t)
	svc := newService()
	client := serveGRPC(t, e, svc, map[string]middleware.Spec{
		streamCall: {Keys: []string{"md.x-order-id"}, AcquireTimeout: middleware.NoWait},
	})
	const n = 10
	errs := make(chan error, n)
	for range n {
		go func() { errs <- recvErr(t.Context(), client, "o1", true) }()
	}
	for range n - 1 {
		wantStatus(t, <-errs, codes.Aborted)
	}
	// Another order runs beside the holder of o1.
	other := make(chan error, 1)
	go func() { other <- recvErr(t.Context(), client, "o2", true) }()
	<-svc.entered
	<-svc.entered
	close(svc.gate)
	if err := <-errs; err != nil {
		t.Fatalf("the holder got %v", err)
	}
	if err := <-other; err != nil {
		t.Fatalf("the other order got %v", err)
	}
	if svc.runs.Load() != 2 {
		t.Fatalf("%d runs, want 2", svc.runs.Load())
	}
	wantStatus(t, recvErr(t.Context(), client, "", false), codes.InvalidArgument)
}

func TestGRPC_passThroughAndStreamReadingRequest(t *testing.T) {
	e := newEnv(t)
	svc := newService()
	close(svc.gate)
	client := serveGRPC(t, e, svc, map[string]middleware.Spec{
		unaryCall:  {Keys: []string{"req.response_status.message"}},
		duplexCall: {Keys: []string{"req.response_status.message"}}, // cannot lock a stream
	})
	if _, err := client.EmptyCall(t.Context(), &testpb.Empty{}); err != nil {
		t.Fatalf("a method without a Spec: %v", err)
	}
	if err := recvErr(t.Context(), client, "", false); err != nil {
		t.Fatalf("a stream without a Spec: %v", err)
	}
	stream, err := client.FullDuplexCall(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	_, err = stream.Recv()
	wantStatus(t, err, codes.Internal)
	if svc.runs.Load() != 1 { // the StreamingOutputCall only
		t.Fatalf("%d runs, want 1", svc.runs.Load())
	}
	if e.count(lock4go.EventAcquired) != 0 {
		t.Fatal("a lock was taken")
	}
}

func TestUnaryServerInterceptor_panicReleases(t *testing.T) {
	e := newEnv(t)
	icpt := middleware.UnaryServerInterceptor(e.tpl, unarySpecs)
	info := &grpc.UnaryServerInfo{FullMethod: unaryCall}
	func() {
		defer func() {
			if recover() != "boom" {
				t.Fatal("the panic did not go on")
			}
		}()
		icpt(t.Context(), order("p", false), info, func(context.Context, any) (any, error) { panic("boom") })
	}()
	resp, err := icpt(t.Context(), order("p", false), info, func(context.Context, any) (any, error) { return "ok", nil })
	if err != nil || resp != "ok" {
		t.Fatalf("after the panic: %v, %v", resp, err)
	}
}

func TestUnaryServerInterceptor_keepUntilExpire(t *testing.T) {
	e := newEnv(t)
	icpt := middleware.UnaryServerInterceptor(e.tpl, map[string]middleware.Spec{
		unaryCall: {Keys: []string{"req.response_status.message"}, Expire: 200 * time.Millisecond,
			KeepUntilExpire: true, AcquireTimeout: middleware.NoWait},
	})
	info := &grpc.UnaryServerInfo{FullMethod: unaryCall}
	ok := func(context.Context, any) (any, error) { return "ok", nil }
	if _, err := icpt(t.Context(), order("k", false), info, ok); err != nil {
		t.Fatal(err)
	}
	_, err := icpt(t.Context(), order("k", false), info, ok)
	wantStatus(t, err, codes.Aborted)
	time.Sleep(250 * time.Millisecond) // let the lease run out
	if _, err := icpt(t.Context(), order("k", false), info, ok); err != nil {
		t.Fatalf("after the window: %v", err)
	}
	time.Sleep(250 * time.Millisecond) // let the last window end before the leak check
}

func TestNewUnaryServerInterceptor_invalid(t *testing.T) {
	e := newEnv(t)
	for name, specs := range map[string]map[string]middleware.Spec{
		"not a full method": {"UnaryCall": {}},
		"bad expression":    {unaryCall: {Keys: []string{"request.id"}}},
		"keep, no expire":   {unaryCall: {KeepUntilExpire: true}},
	} {
		if _, err := middleware.NewUnaryServerInterceptor(e.tpl, specs); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("%s: err = %v, want ErrInvalidConfig", name, err)
		}
		if _, err := middleware.NewStreamServerInterceptor(e.tpl, specs); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("%s (stream): err = %v, want ErrInvalidConfig", name, err)
		}
	}
}
