package grpclock_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	testpb "google.golang.org/grpc/interop/grpc_testing"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/grpclock"
	"github.com/lock4go/lock4go/internal/mwtest"
)

// TestLocks_Check covers what only the registered services can tell: a
// Spec for a method the server does not have (leaving the real one
// unlocked), a stream Spec that reads the request, and a request field
// that the method's request type does not have.
func TestLocks_Check(t *testing.T) {
	e := mwtest.NewEnv(t)
	tests := []struct {
		name  string
		specs map[string]grpclock.Spec
		want  string // in the error; "" for none
	}{
		{"all good", map[string]grpclock.Spec{
			unaryCall:  {Keys: []string{"req.response_status.message", "req.responseSize|int"}},
			streamCall: {Keys: []string{"md.x-order-id", "ip", "method"}},
		}, ""},
		{"method in another case", map[string]grpclock.Spec{"/grpc.testing.TestService/unaryCall": {}},
			`has no such method (did you mean "/grpc.testing.TestService/UnaryCall"?)`},
		{"unknown service", map[string]grpclock.Spec{"/grpc.testing.Nope/UnaryCall": {}}, "has no such method"},
		{"stream reading the request", map[string]grpclock.Spec{duplexCall: {Keys: []string{"req.response_status.message"}}},
			"cannot use req.<field>"},
		{"stream reading the request in Each", map[string]grpclock.Spec{streamCall: {Each: []string{"md.a", "req.response_type"}}},
			"cannot use req.<field>"},
		{"no such field", map[string]grpclock.Spec{unaryCall: {Keys: []string{"req.order_id"}}}, `has no field "order_id"`},
		{"message leaf", map[string]grpclock.Spec{unaryCall: {Keys: []string{"req.payload"}}}, "is a message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			locks, err := grpclock.New(e.Tpl, tt.specs)
			if err != nil {
				t.Fatal(err)
			}
			srv := grpc.NewServer(locks.ServerOptions()...)
			testpb.RegisterTestServiceServer(srv, newService())
			err = locks.Check(srv)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Check = %v", err)
			case tt.want != "" && (!errors.Is(err, lock4go.ErrInvalidConfig) || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Check = %v, want ErrInvalidConfig saying %q", err, tt.want)
			}
		})
	}
	locks, _ := grpclock.New(e.Tpl, nil)
	if err := locks.Check(nil); !errors.Is(err, lock4go.ErrInvalidConfig) {
		t.Fatalf("Check(nil) = %v", err)
	}
}

// TestLocks_Check_quiet checks that a server whose Specs passed Check
// logs nothing about it when calls come.
func TestLocks_Check_quiet(t *testing.T) {
	e := mwtest.NewEnv(t)
	svc := newService()
	close(svc.gate)
	client := serveGRPC(t, e, svc, map[string]grpclock.Spec{unaryCall: {Keys: []string{"req.response_status.message"}}})
	if _, err := client.UnaryCall(t.Context(), order("1", false)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(e.Logs.String(), "Check") {
		t.Fatalf("logged: %s", e.Logs.String())
	}
}

// TestNew_invalid checks what New refuses: Specs whose error is known
// without the server.
func TestNew_invalid(t *testing.T) {
	e := mwtest.NewEnv(t)
	for name, specs := range map[string]map[string]grpclock.Spec{
		"not a full method":        {"UnaryCall": {}},
		"no method name":           {"/grpc.testing.TestService/": {}},
		"bad expression":           {unaryCall: {Keys: []string{"request.id"}}},
		"HTTP expression":          {unaryCall: {Keys: []string{"json.id"}}},
		"not a field name":         {unaryCall: {Keys: []string{"req.a-b"}}},
		"unknown func":             {unaryCall: {Keys: []string{"func.nope"}}},
		"keep, no expire":          {unaryCall: {KeepUntilExpire: true}},
		"negative expire":          {unaryCall: {Expire: -time.Second}},
		"negative acquire timeout": {unaryCall: {AcquireTimeout: -1}},
		"negative retry interval":  {unaryCall: {RetryInterval: -1}},
		"negative permits":         {unaryCall: {Permits: -1}},
		"unknown executor":         {unaryCall: {Executor: "nope"}},
	} {
		if _, err := grpclock.New(e.Tpl, specs); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("%s: New = %v, want ErrInvalidConfig", name, err)
		}
	}
	for name, opt := range map[string]grpclock.Option{
		"key len":  grpclock.WithMaxKeyLen(2000),
		"part len": grpclock.WithMaxPartLen(0),
		"func":     grpclock.WithKeyFunc("", nil),
	} {
		if _, err := grpclock.New(e.Tpl, nil, opt); !errors.Is(err, lock4go.ErrInvalidConfig) {
			t.Errorf("%s: New = %v, want ErrInvalidConfig", name, err)
		}
	}
	if _, err := grpclock.New(nil, nil); !errors.Is(err, lock4go.ErrInvalidConfig) {
		t.Errorf("nil Template: %v", err)
	}
}
