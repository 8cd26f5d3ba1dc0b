package grpclock_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/grpclock"
	"github.com/lock4go/lock4go/internal/mwtest"
	"github.com/lock4go/lock4go/keybuilder"
)

var unarySpecs = map[string]grpclock.Spec{
	unaryCall: {Keys: []string{"req.response_status.message"}, NoWait: true},
}

func TestGRPC_Unary_sameKey(t *testing.T) {
	e := mwtest.NewEnv(t)
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
	e := mwtest.NewEnv(t)
	svc := newService()
	close(svc.gate)
	client := serveGRPC(t, e, svc, map[string]grpclock.Spec{
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
	e := mwtest.NewEnv(t)
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
	e := mwtest.NewEnv(t)
	svc := newService()
	client := serveGRPC(t, e, svc, unarySpecs)
	_, err := client.UnaryCall(t.Context(), &testpb.SimpleRequest{})
	wantStatus(t, err, codes.InvalidArgument)
	if svc.runs.Load() != 0 {
		t.Fatal("the handler ran without a key")
	}
}

func TestGRPC_Unary_backendDown(t *testing.T) {
	e := mwtest.NewEnv(t, mwtest.DownExecutor{})
	svc := newService()
	client := serveGRPC(t, e, svc, map[string]grpclock.Spec{
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
	e := mwtest.NewEnv(t)
	svc := newService()
	client := serveGRPC(t, e, svc, map[string]grpclock.Spec{
		streamCall: {Keys: []string{"md.x-order-id"}, NoWait: true},
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

// TestGRPC_passThroughAndStreamReadingRequest serves without Check: a
// stream whose Spec reads the request fails every call with Internal (its
// misconfiguration logged at Error once), methods without a Spec pass
// through, and the missing Check is logged once.
func TestGRPC_passThroughAndStreamReadingRequest(t *testing.T) {
	e := mwtest.NewEnv(t)
	svc := newService()
	close(svc.gate)
	locks, err := grpclock.New(e.Tpl, map[string]grpclock.Spec{
		unaryCall:  {Keys: []string{"req.response_status.message"}},
		duplexCall: {Keys: []string{"req.response_status.message"}}, // cannot lock a stream
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(locks.ServerOptions()...)
	testpb.RegisterTestServiceServer(srv, svc)
	client := start(t, srv)
	if _, err := client.EmptyCall(t.Context(), &testpb.Empty{}); err != nil {
		t.Fatalf("a method without a Spec: %v", err)
	}
	if err := recvErr(t.Context(), client, "", false); err != nil {
		t.Fatalf("a stream without a Spec: %v", err)
	}
	for range 3 {
		stream, err := client.FullDuplexCall(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		_, err = stream.Recv()
		wantStatus(t, err, codes.Internal)
	}
	if svc.runs.Load() != 1 { // the StreamingOutputCall only
		t.Fatalf("%d runs, want 1", svc.runs.Load())
	}
	if e.Count(lock4go.EventAcquired) != 0 {
		t.Fatal("a lock was taken")
	}
	logs := e.Logs.String()
	if strings.Count(logs, "level=ERROR") != 1 || strings.Count(logs, "Check was not called") != 1 {
		t.Fatalf("want one ERROR for the stream's Spec and one warning that Check was not called:\n%s", logs)
	}
}

func TestGRPC_each(t *testing.T) {
	e := mwtest.NewEnv(t)
	svc := newService()
	close(svc.gate)
	client := serveGRPC(t, e, svc, map[string]grpclock.Spec{
		unaryCall: {Name: "account", Each: []string{"req.response_status.message", "md.to"}, NoWait: true},
	})
	held, err := e.Tpl.Lock(t.Context(), accountKey(t, "B"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := metadata.AppendToOutgoingContext(t.Context(), "to", "B")
	_, err = client.UnaryCall(ctx, order("A", false))
	wantStatus(t, err, codes.Aborted)
	held.Release(t.Context())
	if _, err := client.UnaryCall(ctx, order("A", false)); err != nil {
		t.Fatal(err)
	}
	if svc.runs.Load() != 1 {
		t.Fatalf("%d runs, want 1", svc.runs.Load())
	}
	e.WaitEvent(t, lock4go.EventReleased, accountKey(t, "A"))
	e.WaitEvent(t, lock4go.EventReleased, accountKey(t, "B"))
}

func accountKey(t *testing.T, id string) string {
	t.Helper()
	k, err := keybuilder.Join(lock4go.DefaultKeyPrefix, "account", id)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
