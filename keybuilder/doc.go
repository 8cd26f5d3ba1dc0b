// Package keybuilder turns requests into lock keys, the way Lock4j's
// LockKeyBuilder turns method arguments into keys, without annotations.
//
// A key has Lock4j's shape, <prefix>:<name>#<part1>:<part2>…, or
// <prefix>:<name> without key expressions. The prefix is the Template's
// KeyPrefix; the name is the route pattern, the full gRPC method or a name
// of your choice; each part is the value of one key expression:
//
//	HTTP (NewHTTP)                     gRPC (package grpclock)
//	path.<name>   r.PathValue(name)    req.<a.b>  a scalar request field
//	query.<name>  URL query parameter  md.<key>   incoming metadata
//	header.<Name> request header       method     the full method
//	cookie.<name> cookie value         ip         the peer's address
//	form.<name>   body form field      func.<n>   grpclock.WithKeyFunc
//	json.<a.b.c>  scalar in a JSON body
//	ip, method    client address, HTTP method
//	func.<name>   [WithHTTPFunc]
//
// A part may end in "|int" or "|float" to key the number a handler parses
// rather than its spelling, or "|base64" to key the bytes a handler
// decodes. A missing part, or one that cannot be keyed, is a [*PartError]
// wrapping executor.ErrInvalidKey, whose [PartError.Message] names the
// expression (the middleware answers 400 with it); names and parts are
// escaped so that no two different requests build the same key, and a key
// longer than [DefaultMaxKeyLen] is shortened to a prefix and a SHA-256 of
// the rest. [Join] builds keys by hand with the same escaping, and
// [Fields] builds them from the fields of a struct, for lock4go.Locked.
//
// A body is read for a key as the handler's reader would read it (the
// Content-Type and the method decide, as net/http's form methods,
// encoding/json, gin and echo do), and a request they could read another
// way (a name both in the query and in the body, a value given twice) is
// refused, never keyed by one reading while the handler acts on another.
// The HTTP builder, grpclock's and [Fields] key one value alike (integers
// as digits, enums by number, bytes as standard base64), so that a job, a
// gRPC call and an HTTP request on the same order exclude each other. A
// body is read up to [DefaultMaxBodyBytes] (413 beyond), a part up to
// [DefaultMaxPartLen].
//
// Keys must not change across releases while old and new processes run:
// set an explicit name when a route pattern may change. The expressions
// in full, the body rules, the number traps, value rules, escaping and the
// limits are in docs/keys.md of the repository:
// https://github.com/lock4go/lock4go/blob/main/docs/keys.md
package keybuilder
