// Package grpclock locks gRPC methods with lock4go: the gRPC counterpart of
// package middleware, in a package of its own so that a net/http service
// links no gRPC: interceptors, their [Spec] per method, failure strategies
// that answer with status codes, and the gRPC key expressions.
//
// One spec map installs both interceptors, unary and stream, and a check
// against the registered services catches the Spec of a method that does
// not exist:
//
//	locks, err := grpclock.New(tpl, map[string]grpclock.Spec{
//		"/shop.Orders/Pay": {Keys: []string{"req.order_id"}, NoWait: true},
//	})
//	if err != nil {
//		return err // a malformed key expression, a negative duration…
//	}
//	srv := grpc.NewServer(locks.ServerOptions()...)
//	shoppb.RegisterOrdersServer(srv, orders)
//	if err := locks.Check(srv); err != nil {
//		return err // "/shop.Orders/pay": the server has no such method…
//	}
//
// Per call with a Spec, as package middleware does for HTTP: the key
// <KeyPrefix>:<name>#<parts> is built from [Spec.Keys] (one key per value,
// as package keybuilder formats it for HTTP and lock4go.Locked); the lock
// is taken with Template.Lock on the call's context; if that fails, the
// failure strategy answers ([StatusFailure] by default: Aborted when busy,
// Unavailable when the backend is down, InvalidArgument naming the key
// part a call lacks, Internal for a misconfiguration) and the handler does
// not run; otherwise the handler runs with a context that carries the
// lock and is cancelled, with cause lock4go.ErrLockLost, if it is lost;
// the lock is released when the handler returns or panics (unless
// Spec.KeepUntilExpire keeps it; grpc-go does not recover panics: put a
// recovery interceptor before ServerOptions). Methods without a Spec pass
// through untouched.
//
// req.<a.b> walks the request message by proto field names to a scalar
// or a well-known wrapper; a field that is not set is missing
// (InvalidArgument), and in proto3 so are 0 and false of a field without
// presence (declare it optional, or use a wrapper, to lock on them). A
// stream is locked before its first message, so its keys may use md.<key>,
// method, ip and func.<name> only, which the client chooses: the handler
// must check each message against the key. All the types of this package
// are safe for concurrent use. docs/guide.md of the repository, "gRPC":
// https://github.com/lock4go/lock4go/blob/main/docs/guide.md#grpc
package grpclock
