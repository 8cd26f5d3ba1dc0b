package keybuilder

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"github.com/lock4go/lock4go/executor"
)

const unary = "/grpc.testing.TestService/UnaryCall"

func TestNewGRPC_malformed(t *testing.T) {
	for _, exprs := range [][]string{
		{"request.id"}, {"req"}, {"req.a..b"}, {"req.1a"}, {"req.a-b"}, {"md."}, {"method.x"},
		{"func.nope"}, {"path.id"}, {"json.id"}, {"req.id|num"}, {"method|int"}, {"ip|float"},
	} {
		if _, err := NewGRPC("lock4go", "", exprs); !errors.Is(err, executor.ErrInvalidConfig) {
			t.Errorf("NewGRPC(%q): err = %v, want ErrInvalidConfig", exprs, err)
		}
	}
}

func TestGRPC_Key(t *testing.T) {
	full := &testpb.SimpleRequest{
		ResponseType:   testpb.PayloadType_COMPRESSABLE,
		ResponseSize:   -7,
		FillUsername:   true,
		Payload:        &testpb.Payload{Body: []byte("b:1")},
		ResponseStatus: &testpb.EchoStatus{Code: 3, Message: "m#1"},
	}
	md := metadata.Pairs("x-tenant", "t1", "x-tenant", "t2", "x-empty", "", "x-n", "005")
	ctx := metadata.NewIncomingContext(context.Background(), md)
	ctx = peer.NewContext(ctx, &peer.Peer{Addr: &net.TCPAddr{IP: net.ParseIP("192.0.2.5"), Port: 99}})
	tenant := WithGRPCFunc("tenant", func(ctx context.Context, method string, req any) (string, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		return strings.ToUpper(md.Get("x-tenant")[0]), nil
	})
	tests := []struct {
		name    string
		exprs   []string
		req     any
		want    string
		wantErr error
	}{
		{"no exprs", nil, full, "lock4go:/grpc.testing.TestService/UnaryCall", nil},
		{"string nested", []string{"req.response_status.message"}, full, "lock4go:/grpc.testing.TestService/UnaryCall#m%231", nil},
		{"json name", []string{"req.responseStatus.code"}, full, "lock4go:/grpc.testing.TestService/UnaryCall#3", nil},
		{"int", []string{"req.response_size"}, full, "lock4go:/grpc.testing.TestService/UnaryCall#-7", nil},
		{"int as int", []string{"req.response_size|int"}, full, "lock4go:/grpc.testing.TestService/UnaryCall#-7", nil},
		{"md as int", []string{"md.x-n|int"}, nil, "lock4go:/grpc.testing.TestService/UnaryCall#5", nil},
		{"md not a number", []string{"md.x-tenant|float"}, nil, "", executor.ErrInvalidKey},
		{"bool as int", []string{"req.fill_username|int"}, full, "", executor.ErrInvalidKey},
		{"zero enum is missing", []string{"req.response_type"}, full, "", executor.ErrInvalidKey}, // COMPRESSABLE = 0
		{"bool", []string{"req.fill_username"}, full, "lock4go:/grpc.testing.TestService/UnaryCall#true", nil},
		{"bytes", []string{"req.payload.body"}, full, "lock4go:/grpc.testing.TestService/UnaryCall#b%3A1", nil},
		{"zero is missing", []string{"req.fill_server_id"}, full, "", executor.ErrInvalidKey},
		{"unset message is missing", []string{"req.response_status.message"}, &testpb.SimpleRequest{}, "", executor.ErrInvalidKey},
		{"nil request message", []string{"req.response_size"}, (*testpb.SimpleRequest)(nil), "", executor.ErrInvalidKey},
		{"unknown field", []string{"req.order_id"}, full, "", executor.ErrInvalidConfig},
		{"message leaf", []string{"req.payload"}, full, "", executor.ErrInvalidConfig},
		{"through a scalar", []string{"req.response_size.x"}, full, "", executor.ErrInvalidConfig},
		{"repeated", []string{"req.response_parameters"}, &testpb.StreamingOutputCallRequest{}, "", executor.ErrInvalidConfig},
		{"not proto", []string{"req.id"}, struct{ ID int }{1}, "", executor.ErrInvalidConfig},
		{"md first value", []string{"md.X-Tenant"}, nil, "lock4go:/grpc.testing.TestService/UnaryCall#t1", nil},
		{"md missing", []string{"md.x-order"}, nil, "", executor.ErrInvalidKey},
		{"md empty", []string{"md.x-empty"}, nil, "", executor.ErrInvalidKey},
		{"method", []string{"method"}, nil, "lock4go:/grpc.testing.TestService/UnaryCall#/grpc.testing.TestService/UnaryCall", nil},
		{"ip", []string{"ip"}, nil, "lock4go:/grpc.testing.TestService/UnaryCall#192.0.2.5", nil},
		{"func and md", []string{"func.tenant", "md.x-tenant"}, nil, "lock4go:/grpc.testing.TestService/UnaryCall#T1:t1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := NewGRPC("lock4go", "", tt.exprs, tenant)
			if err != nil {
				t.Fatal(err)
			}
			got, err := b.Key(ctx, unary, tt.req)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Key = %q, %v; want %v", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Key = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestGRPC_Key_enum(t *testing.T) {
	b, err := NewGRPC("p", "unary", []string{"req.payload.type"})
	if err != nil {
		t.Fatal(err)
	}
	// Payload.type is proto3 implicit presence too; COMPRESSABLE is 0, so use
	// an unknown number to show numbers are used, not names.
	got, err := b.Key(context.Background(), unary, &testpb.SimpleRequest{Payload: &testpb.Payload{Type: 5}})
	if err != nil || got != "p:unary#5" {
		t.Fatalf("Key = %q, %v", got, err)
	}
	if !b.ReadsRequest() {
		t.Error("ReadsRequest = false")
	}
}
