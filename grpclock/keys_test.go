package grpclock

import (
	"context"
	"errors"
	"math"
	"net"
	"strings"
	"testing"

	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"github.com/lock4go/lock4go/executor"
	"github.com/lock4go/lock4go/keybuilder"
)

func builder(t *testing.T, exprs []string, opts ...Option) *keyBuilder {
	t.Helper()
	o, err := buildOptions(opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newKeyBuilder("lock4go", "", exprs, &o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestKeyBuilder_malformed(t *testing.T) {
	o, _ := buildOptions(nil)
	for _, exprs := range [][]string{
		{"request.id"}, {"req"}, {"req.a..b"}, {"req.1a"}, {"req.a-b"}, {"md."}, {"method.x"},
		{"func.nope"}, {"path.id"}, {"json.id"}, {"req.id|num"}, {"method|int"}, {"ip|float"},
	} {
		if _, err := newKeyBuilder("lock4go", "", exprs, &o); !errors.Is(err, executor.ErrInvalidConfig) {
			t.Errorf("newKeyBuilder(%q): err = %v, want ErrInvalidConfig", exprs, err)
		}
	}
}

func TestKeyBuilder_key(t *testing.T) {
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
	tenant := WithKeyFunc("tenant", func(ctx context.Context, method string, req any) (string, error) {
		md, _ := metadata.FromIncomingContext(ctx)
		return strings.ToUpper(md.Get("x-tenant")[0]), nil
	})
	const name = "lock4go:/grpc.testing.TestService/UnaryCall"
	tests := []struct {
		name    string
		exprs   []string
		req     any
		want    string
		wantErr error
	}{
		{"no exprs", nil, full, name, nil},
		{"string nested", []string{"req.response_status.message"}, full, name + "#m%231", nil},
		{"json name", []string{"req.responseStatus.code"}, full, name + "#3", nil},
		{"int", []string{"req.response_size"}, full, name + "#-7", nil},
		{"int as int", []string{"req.response_size|int"}, full, name + "#-7", nil},
		{"md as int", []string{"md.x-n|int"}, nil, name + "#5", nil},
		{"md not a number", []string{"md.x-tenant|float"}, nil, "", executor.ErrInvalidKey},
		{"bool as int", []string{"req.fill_username|int"}, full, "", executor.ErrInvalidKey},
		{"zero enum is missing", []string{"req.response_type"}, full, "", executor.ErrInvalidKey}, // COMPRESSABLE = 0
		{"bool", []string{"req.fill_username"}, full, name + "#true", nil},
		{"bytes in base64", []string{"req.payload.body"}, full, name + "#Yjox", nil},
		{"zero is missing", []string{"req.fill_server_id"}, full, "", executor.ErrInvalidKey},
		{"unset message is missing", []string{"req.response_status.message"}, &testpb.SimpleRequest{}, "", executor.ErrInvalidKey},
		{"nil request message", []string{"req.response_size"}, (*testpb.SimpleRequest)(nil), "", executor.ErrInvalidKey},
		{"unknown field", []string{"req.order_id"}, full, "", executor.ErrInvalidConfig},
		{"message leaf", []string{"req.payload"}, full, "", executor.ErrInvalidConfig},
		{"through a scalar", []string{"req.response_size.x"}, full, "", executor.ErrInvalidConfig},
		{"repeated", []string{"req.response_parameters"}, &testpb.StreamingOutputCallRequest{}, "", executor.ErrInvalidConfig},
		{"not proto", []string{"req.id"}, struct{ ID int }{1}, "", executor.ErrInvalidConfig},
		{"md first value", []string{"md.X-Tenant"}, nil, name + "#t1", nil},
		{"md missing", []string{"md.x-order"}, nil, "", executor.ErrInvalidKey},
		{"md empty", []string{"md.x-empty"}, nil, "", executor.ErrInvalidKey},
		{"method", []string{"method"}, nil, name + "#/grpc.testing.TestService/UnaryCall", nil},
		{"ip", []string{"ip"}, nil, name + "#192.0.2.5", nil},
		{"func and md", []string{"func.tenant", "md.x-tenant"}, nil, name + "#T1:t1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := builder(t, tt.exprs, tenant).key(ctx, unaryCall, tt.req)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("key = %q, %v; want %v", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("key = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestKeyBuilder_values covers the formatter every builder shares, on a
// message with every scalar kind: enums by number, floats in one form per
// value (-0 as 0, 1.5e6 as 1500000, whole doubles under |int), NaN and
// infinities refused, zero values with presence (optional, wrappers) kept,
// empty strings missing whatever their presence.
func TestKeyBuilder_values(t *testing.T) {
	md := payDescriptor(t)
	const name = "lock4go:/grpc.testing.TestService/UnaryCall#"
	tests := []struct {
		name    string
		expr    string
		fields  map[string]any
		want    string
		wantErr error
	}{
		{"enum by number", "req.kind", map[string]any{"kind": int32(9)}, "9", nil},
		{"unknown enum number", "req.kind", map[string]any{"kind": int32(77)}, "77", nil},
		{"whole double", "req.amount", map[string]any{"amount": 1500000.0}, "1500000", nil},
		{"whole double as int", "req.amount|int", map[string]any{"amount": 1.5e6}, "1500000", nil},
		{"huge double as int", "req.amount|int", map[string]any{"amount": 1e21}, "1000000000000000000000", nil},
		{"fraction as int", "req.amount|int", map[string]any{"amount": 1.5}, "", executor.ErrInvalidKey},
		{"fraction", "req.amount", map[string]any{"amount": 0.1}, "0.1", nil},
		{"minus zero", "req.neg", map[string]any{"neg": math.Copysign(0, -1)}, "0", nil},
		{"NaN", "req.amount", map[string]any{"amount": math.NaN()}, "", executor.ErrInvalidKey},
		{"infinity", "req.amount", map[string]any{"amount": math.Inf(-1)}, "", executor.ErrInvalidKey},
		{"float32", "req.rate", map[string]any{"rate": float32(0.1)}, "0.1", nil},
		{"float32 NaN", "req.rate", map[string]any{"rate": float32(math.NaN())}, "", executor.ErrInvalidKey},
		{"uint", "req.seq", map[string]any{"seq": uint32(4000000000)}, "4000000000", nil},
		{"bytes", "req.token", map[string]any{"token": []byte{0xff, ':'}}, "/zo=", nil},
		{"bytes as base64", "req.token|base64", map[string]any{"token": []byte{0xff, ':'}}, "/zo=", nil},
		{"URL-safe base64 string", "req.order_id|base64", map[string]any{"order_id": "_zo"}, "/zo=", nil},
		{"not base64", "req.order_id|base64", map[string]any{"order_id": "*"}, "", executor.ErrInvalidKey},
		{"optional enum", "req.opt_kind", map[string]any{"opt_kind": int32(9)}, "9", nil},
		{"zero without presence", "req.count", map[string]any{"count": int64(0)}, "", executor.ErrInvalidKey},
		{"optional zero", "req.opt_count", map[string]any{"opt_count": int64(0)}, "0", nil},
		{"optional unset", "req.opt_count", map[string]any{}, "", executor.ErrInvalidKey},
		{"wrapped zero", "req.wrapped", map[string]any{"wrapped": int64(0)}, "0", nil},
		{"wrapped zero by its value", "req.wrapped.value", map[string]any{"wrapped": int64(0)}, "0", nil},
		{"wrapped unset", "req.wrapped", map[string]any{}, "", executor.ErrInvalidKey},
		{"wrapped empty string", "req.wrapped_name", map[string]any{"wrapped_name": ""}, "", executor.ErrInvalidKey},
		{"wrapped string", "req.wrappedName", map[string]any{"wrapped_name": "a:b"}, "a%3Ab", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := builder(t, []string{tt.expr}).key(context.Background(), unaryCall, payMessage(md, tt.fields))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("key = %q, %v; want %v", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != name+tt.want {
				t.Fatalf("key = %q, %v; want %q", got, err, name+tt.want)
			}
		})
	}
}

// TestKeyBuilder_ipWithoutIP checks that a peer without an IP (a unix
// socket: every client is "@") is a missing part, not one key for all.
func TestKeyBuilder_ipWithoutIP(t *testing.T) {
	b := builder(t, []string{"ip"})
	for _, addr := range []net.Addr{&net.UnixAddr{Name: "@", Net: "unix"}, &net.UnixAddr{Net: "unix"}} {
		ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: addr})
		_, err := b.key(ctx, unaryCall, nil)
		var pe *keybuilder.PartError
		if !errors.As(err, &pe) || pe.Expr != "ip" || !errors.Is(err, executor.ErrInvalidKey) {
			t.Fatalf("ip of %q: %v, want a PartError wrapping ErrInvalidKey", addr, err)
		}
	}
	if _, err := b.key(context.Background(), unaryCall, nil); !errors.Is(err, executor.ErrInvalidKey) {
		t.Fatalf("no peer: %v", err)
	}
}

// TestKeyBuilder_partCap checks the cap on a part's raw length, for
// strings and bytes (their bytes, not their base64 form), and that parts
// below it are hashed into long keys.
func TestKeyBuilder_partCap(t *testing.T) {
	md := payDescriptor(t)
	b := builder(t, []string{"req.order_id", "req.token"}, WithMaxPartLen(1000))
	for _, fields := range []map[string]any{
		{"order_id": strings.Repeat("x", 1001), "token": []byte("t")},
		{"order_id": "1", "token": make([]byte, 1001)},
	} {
		if _, err := b.key(context.Background(), unaryCall, payMessage(md, fields)); !errors.Is(err, executor.ErrInvalidKey) {
			t.Fatalf("a part over the cap: %v, want ErrInvalidKey", err)
		}
	}
	if _, err := b.key(context.Background(), unaryCall, payMessage(md, map[string]any{"order_id": "1", "token": make([]byte, 1000)})); err != nil {
		t.Fatalf("1000 bytes under a cap of 1000: %v", err)
	}
	k, err := b.key(context.Background(), unaryCall, payMessage(md, map[string]any{"order_id": strings.Repeat(":", 1000), "token": []byte("t")}))
	if err != nil || !strings.Contains(k, "##") || len(k) > keybuilder.DefaultMaxKeyLen {
		t.Fatalf("a long part below the cap: %q, %v; want a hashed key", k, err)
	}
	want, _ := keybuilder.Join("lock4go", unaryCall, strings.Repeat(":", 1000), "dA==")
	if k != want {
		t.Fatalf("hashed key %q, Join gives %q", k, want)
	}
}

// TestKeyBuilder_oneKeyWhateverTheLimit: WithMaxKeyLen does not change
// which keys are hashed, so the interceptors build the key Join and every
// other builder build for the same parts, whatever their limits.
func TestKeyBuilder_oneKeyWhateverTheLimit(t *testing.T) {
	md := payDescriptor(t)
	for _, n := range []int{10, 480, 600, 2000} {
		id := strings.Repeat("7", n)
		want, err := keybuilder.Join("lock4go", unaryCall, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{keybuilder.DefaultMaxKeyLen, 1024} {
			got, err := builder(t, []string{"req.order_id"}, WithMaxKeyLen(limit)).key(context.Background(), unaryCall,
				payMessage(md, map[string]any{"order_id": id}))
			if err != nil || got != want {
				t.Errorf("%d-byte id, WithMaxKeyLen(%d): %q, %v; Join gives %q", n, limit, got, err, want)
			}
		}
	}
	if _, err := buildOptions([]Option{WithMaxKeyLen(100)}); !errors.Is(err, executor.ErrInvalidConfig) {
		t.Errorf("WithMaxKeyLen(100): %v, want ErrInvalidConfig", err)
	}
}
