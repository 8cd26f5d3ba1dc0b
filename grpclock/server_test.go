package grpclock_test

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/status"

	"github.com/lock4go/lock4go/failure"
	"github.com/lock4go/lock4go/grpclock"
	"github.com/lock4go/lock4go/internal/mwtest"
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

// serveGRPC starts a real server on a loopback port with the Locks of
// specs installed and checked, the one way the package documents.
func serveGRPC(t *testing.T, e *mwtest.Env, svc *testService, specs map[string]grpclock.Spec, opts ...grpclock.Option) testpb.TestServiceClient {
	t.Helper()
	locks, err := grpclock.New(e.Tpl, specs, opts...)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(locks.ServerOptions()...)
	testpb.RegisterTestServiceServer(srv, svc)
	if err := locks.Check(srv); err != nil {
		t.Fatal(err)
	}
	return start(t, srv)
}

// start serves srv on a loopback port and returns a client of it.
func start(t *testing.T, srv *grpc.Server) testpb.TestServiceClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
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

// wantStatus fails t unless err is code with the default strategy's
// message for it.
func wantStatus(t *testing.T, err error, code codes.Code) {
	t.Helper()
	want := failure.DefaultMessage
	switch code {
	case codes.InvalidArgument:
		want = `missing key part "` // and the expression
	case codes.Internal:
		want = failure.MisconfiguredMessage
	}
	st, _ := status.FromError(err)
	if st.Code() != code || !strings.HasPrefix(st.Message(), want) {
		t.Fatalf("err = %v, want %v %q", err, code, want)
	}
}
