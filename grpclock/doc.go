// Package grpclock locks gRPC methods with lock4go: the gRPC counterpart of
// package middleware, in a package of its own so that a net/http service
// links no gRPC. It has the interceptors, their [Spec] per method, the
// failure strategies that answer with status codes, and the gRPC key
// expressions (req.<field>, md.<key>).
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
// Per call with a Spec:
//
//  1. the key <KeyPrefix>:<name>#<parts> is built from the Spec's
//     expressions (see [Spec.Keys]), formatted as package keybuilder
//     formats the same values for HTTP and lock4go.Locked: one key per
//     value whichever builds it (enums by number, floats in one form,
//     bytes in base64);
//  2. the lock is taken with Template.Lock on the call's context;
//  3. if that fails, the failure strategy answers ([StatusFailure] by
//     default: Aborted when busy, Unavailable when the backend is down,
//     InvalidArgument naming the key part a call lacks, Internal for a
//     misconfiguration, logged at Error once per method) and the handler
//     does not run;
//  4. otherwise the handler runs with a context that carries the lock (a
//     nested Template.Lock or Do on the same key re-enters it) and that is
//     cancelled, with cause lock4go.ErrLockLost, if the lock is lost;
//  5. when the handler returns or panics, the lock is released (unless
//     Spec.KeepUntilExpire keeps it); a panic goes on (grpc-go does not
//     recover panics: put a recovery interceptor before ServerOptions).
//
// Methods without a Spec pass through untouched.
//
// # Request fields and zero values
//
// req.<a.b> walks the request message by proto field names (or JSON
// names) to a scalar or a well-known wrapper (google.protobuf.Int64Value
// and the others). A field that is not set is missing (InvalidArgument).
// In proto3 a field without presence holds its zero value when it is not
// set, so 0 and false are missing too: declare the field optional, or use
// a wrapper, to lock on 0 or false. An empty string or bytes value is
// missing whatever its presence: a key part is never empty.
//
// # Streams
//
// A stream is locked before the handler receives its first message, so its
// keys cannot read the request: Spec.Keys of a streaming method may use
// md.<key>, method, ip and func.<name> only ([Locks.Check] refuses req.;
// without Check, such a stream fails every call with Internal). Those
// parts are chosen by the client, not by the messages it sends next: a
// client may lock order 1 in metadata and send messages about order 2.
// The handler must check each message it receives against the key (read
// the lock with lock4go.LockFrom on the stream's context, or compare the
// message's id with the metadata) and refuse a message that does not
// match.
//
// All the types of this package are safe for concurrent use.
package grpclock
