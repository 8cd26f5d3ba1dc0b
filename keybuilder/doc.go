// Package keybuilder turns requests into lock keys, the way Lock4j's
// LockKeyBuilder turns method arguments into keys, without annotations.
//
// A key has Lock4j's shape, <prefix>:<name>#<part1>:<part2>…, or
// <prefix>:<name> without key expressions. The prefix is the Template's
// KeyPrefix; the name is the route pattern, the full gRPC method or a name
// of your choice; each part is the value of one key expression:
//
//	HTTP (NewHTTP)                     gRPC (NewGRPC)
//	path.<name>   r.PathValue(name)    req.<a.b>  a scalar request field
//	query.<name>  URL query parameter  md.<key>   incoming metadata
//	header.<Name> request header       method     the full method
//	cookie.<name> cookie value         ip         the peer's address
//	form.<name>   body form field      func.<n>   [WithGRPCFunc]
//	json.<a.b.c>  scalar in a JSON body
//	ip, method    client address, HTTP method
//	func.<name>   [WithHTTPFunc]
//
// A part may end in "|int" or "|float" to key the number a handler parses
// rather than its spelling. A missing part is an error wrapping
// executor.ErrInvalidKey (the middleware answers 400); names and parts are
// escaped so that no two different requests build the same key, and a key
// longer than the limit is shortened to a prefix and a SHA-256 of the rest.
// [Join] builds keys by hand with the same escaping, and [Fields] builds
// them from the fields of a struct, for lock4go.Locked.
//
// Keys must not change across releases while old and new processes run:
// set an explicit name when a route pattern may change.
//
// The expressions in full, the number traps, value rules, escaping and the
// length limit are described in docs/keys.md of the repository:
// https://github.com/lock4go/lock4go/blob/main/docs/keys.md
package keybuilder
