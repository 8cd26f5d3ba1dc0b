package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"google.golang.org/grpc"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"

	"github.com/lock4go/lock4go"
	"github.com/lock4go/lock4go/grpclock"
	"github.com/lock4go/lock4go/middleware"
)

// payMethod is the gRPC method the demo locks: grpc-go's own test service,
// so the demo needs no generated code of its own.
const payMethod = "/grpc.testing.TestService/UnaryCall"

// service is one instance of the "pay order" service: its own executor and
// Template, an HTTP endpoint POST /orders/{id}/pay behind the lock
// middleware, and a gRPC method behind the lock interceptor. Both lock the
// same key, lock4go:pay#<order id>, so HTTP and gRPC payments of one order
// exclude each other across all instances.
type service struct {
	tpl     *lock4go.Template
	httpURL string
	grpcLis net.Listener
	httpSrv *http.Server
	grpcSrv *grpc.Server
	closeEx func()
}

// lease is the instances' Config.Expire: short, so that a lock lost on
// purpose is noticed within seconds (a third of it, by the watchdog's next
// renewal, on Redis; sooner where the backend tells).
const lease = 6 * time.Second

// startService starts one instance; pay runs inside the lock.
func startService(b backend, spec middleware.Spec, pay func(ctx context.Context, order string) error) (*service, error) {
	exec, closeEx, err := b.NewExecutor()
	if err != nil {
		return nil, err
	}
	// The report shows losses; the logs would only repeat them.
	tpl, err := lock4go.New(lock4go.Config{Expire: lease, RetryInterval: 50 * time.Millisecond, Logger: quiet}, exec)
	if err != nil {
		closeEx()
		return nil, err
	}
	s := &service{tpl: tpl, closeEx: closeEx}

	httpSpec := spec
	httpSpec.Keys = []string{"path.id"}
	mux := http.NewServeMux()
	mux.Handle("POST /orders/{id}/pay", middleware.HTTP(tpl, httpSpec)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := context.WithValue(r.Context(), requestKey{}, r)
		if err := pay(ctx, r.PathValue("id")); err != nil {
			http.Error(w, "payment failed", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})))
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.Close()
		return nil, err
	}
	s.httpURL = "http://" + hl.Addr().String()
	s.httpSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go s.httpSrv.Serve(hl)

	// The same lock for gRPC calls, keyed by the order in the metadata.
	if s.grpcSrv, err = grpcServer(tpl, spec, pay); err != nil {
		s.Close()
		return nil, err
	}
	s.grpcLis, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.Close()
		return nil, err
	}
	go s.grpcSrv.Serve(s.grpcLis)
	return s, nil
}

// grpcServer returns the gRPC server of the pay method, locked as spec
// says, keyed by the order-id metadata.
func grpcServer(tpl *lock4go.Template, spec middleware.Spec, pay func(ctx context.Context, order string) error) (*grpc.Server, error) {
	locks, err := grpclock.New(tpl, map[string]grpclock.Spec{
		payMethod: {Name: spec.Name, Keys: []string{"md.order-id"}, AcquireTimeout: spec.AcquireTimeout},
	})
	if err != nil {
		return nil, err
	}
	srv := grpc.NewServer(locks.ServerOptions()...)
	testgrpc.RegisterTestServiceServer(srv, &payServer{pay: pay})
	return srv, locks.Check(srv)
}

// Close stops the servers and the executor.
func (s *service) Close() {
	if s.grpcSrv != nil {
		s.grpcSrv.Stop()
	}
	if s.httpSrv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = s.httpSrv.Shutdown(ctx)
		cancel()
	}
	s.closeEx()
}

// payServer implements the locked gRPC method.
type payServer struct {
	testgrpc.UnimplementedTestServiceServer
	pay func(ctx context.Context, order string) error
}

func (p *payServer) UnaryCall(ctx context.Context, _ *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	order, ok := orderFromMetadata(ctx)
	if !ok {
		return nil, errors.New("no order-id")
	}
	if err := p.pay(ctx, order); err != nil {
		return nil, err
	}
	return &testgrpc.SimpleResponse{}, nil
}
