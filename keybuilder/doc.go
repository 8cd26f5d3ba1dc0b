// Package keybuilder turns requests into lock keys, the way Lock4j's
// LockKeyBuilder turns method arguments into keys, without annotations.
//
// A key has Lock4j's shape:
//
//	<prefix>:<name>#<part1>:<part2>…
//
// or <prefix>:<name> when there are no key expressions. The prefix is the
// Template's KeyPrefix ("lock4go" by default); the name is the route pattern
// (r.Pattern), the full gRPC method, or a name of your choice; each part is
// the value of one key expression, evaluated per request.
//
// # Expressions
//
// HTTP ([NewHTTP]):
//
//	path.<name>    r.PathValue(name) (Go 1.22 ServeMux wildcards)
//	query.<name>   first value of the URL query parameter
//	header.<Name>  first value of the header (canonicalised)
//	cookie.<name>  value of the cookie
//	form.<name>    first value of a body form field (urlencoded or multipart,
//	               not file parts, not the URL query: use query.<name>)
//	json.<a.b.c>   a scalar in a JSON body; numeric segments index arrays
//	ip             the client address (see [WithTrustedProxies] and [WithClientIPHeader])
//	method         the HTTP method
//	func.<name>    a function registered with [WithHTTPFunc]
//
// gRPC ([NewGRPC]):
//
//	req.<a.b>      a scalar field of the request message (protoreflect;
//	               proto field names or JSON names)
//	md.<key>       first value of the incoming metadata key (lowercased)
//	method         the full method ("/pkg.Service/Method")
//	ip             the peer's address
//	func.<name>    a function registered with [WithGRPCFunc]
//
// Expressions are parsed once, when the builder is constructed; a malformed
// expression is a construction error wrapping [executor.ErrInvalidConfig].
//
// # Values
//
// A part that is missing or empty is an error wrapping
// [executor.ErrInvalidKey] that names the expression: a request never falls
// back to a shared default key.
//
// json. values: strings are used as they are; numbers in one canonical
// form per value (42, 42.0 and 4.2e1 give "42"; 1e20 and
// 100000000000000000000 give the same; integers of any size keep their
// exact value; other numbers their float64 value), so {"id":42} and
// {"id":"42"} lock the same key; booleans give "true" or "false"; null is
// missing; objects and arrays are rejected (ErrInvalidKey): a part must be a
// scalar. Names match ignoring case, as encoding/json does when it decodes
// into a struct, and an object on the path with two members of that name
// (ignoring case) is an ErrInvalidKey: the handler could decode the other
// one. form. values are read from the body only; a name that is also in
// the query string is an ErrInvalidKey, since r.FormValue prefers the body
// for urlencoded bodies but the query for multipart ones. The body is read up to
// [DefaultMaxBodyBytes] (see [WithMaxBodyBytes]); a longer body is an
// ErrInvalidKey. r.Body is replaced by a reader that yields the same bytes,
// so the handler reads the body unchanged. form. values read the body the
// same way.
//
// req. values: a field that is not set (protoreflect Has is false) is
// missing; in proto3 a field without presence (no "optional") is "not set"
// when it holds its zero value, so 0, false and "" are missing: declare the
// field optional to lock on a zero value. Enums are formatted by number
// (numbers are the stable part of a proto contract; names may be renamed and
// unknown values have none). Floats use the shortest decimal form, bytes
// their raw value (escaped). Repeated, map and message leaves are a
// configuration error ([executor.ErrInvalidConfig]), as is a field path that
// does not exist in the request type.
//
// # Escaping and length
//
// Inside the name and every part, '%', ':', '#', '{', '}', ASCII control
// characters and bytes that are not valid UTF-8 are percent-encoded (%25,
// %3A, %23, %7B, %7D, …), so the separators stay unambiguous and two
// different (name, parts) tuples never build the same key (for a given
// prefix). Keys are valid UTF-8 and never contain NUL.
//
// Braces are escaped because Redis Cluster hashes only the "{...}" hash tag
// of a key that has one: unescaped, the route pattern "POST /orders/{id}/pay"
// (the default name) would put every key of the route in the slot of "id",
// and a client could choose the slot of its keys. Only the prefix is used as
// given: a prefix with a hash tag ("{app}") puts all keys in one slot, by
// choice. This escaping changed the keys of names and parts that contain
// braces (every route pattern with a wildcard): processes built before it
// lock other keys for those routes, so do not run them side by side with
// newer ones on the same locks.
//
// A key longer than the builder's maximum ([DefaultMaxKeyLen] bytes, see
// [WithMaxKeyLen]) is replaced by
//
//	<prefix>:<name>##<sha256 hex of the full key>
//
// which is never truncated, keeps the name readable, and cannot collide with
// a key that was not hashed (an unhashed key never contains "##", because
// '#' is escaped inside the name and the parts, and parts are never empty).
//
// Builders are immutable after construction and safe for concurrent use.
package keybuilder
