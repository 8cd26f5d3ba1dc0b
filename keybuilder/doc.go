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
// Any expression but ip and method may end in a conversion, "|int" or
// "|float" ("path.id|int", "json.order.id|float"): see Numbers below.
//
// Expressions are parsed once, when the builder is constructed; a malformed
// expression is a construction error wrapping [executor.ErrInvalidConfig].
//
// # Numbers: key what the handler sees
//
// Parts are compared as strings, but handlers often parse them as numbers,
// and then several strings are one order, and would run at once under
// several keys:
//
//   - a path or query value parsed with strconv.Atoi or ParseInt(s, 10, 64):
//     "42", "042" and "+42" are order 42;
//   - a JSON string decoded into an int64 field tagged `json:"id,string"`:
//     {"id":"42"}, {"id":"042"} and {"id":"0042"} are order 42; into a
//     float64 with ",string": "42", "42.0", "4.2e1" and "0x2Ap0";
//   - a JSON number decoded into float64, any or map[string]any (or read
//     from a json.Number with Float64): 9007199254740992 and
//     9007199254740993 are both 9007199254740992, since a float64 holds
//     integers exactly only up to 2^53.
//
// A conversion keys the part by the value the handler sees:
//
//	<expr>|int    the part read as a base-10 integer, as strconv.ParseInt(s, 10, 64)
//	              and encoding/json's integer fields read it (sign, digits,
//	              leading zeros), keyed by its exact value: "042", "+42", 42 and,
//	              for JSON numbers, 4.2e1 give "42". Anything else (a fraction,
//	              "4.2e1" as a string, "abc", true) is an ErrInvalidKey.
//	              For handlers that decode into an integer type.
//	<expr>|float  the part read as strconv.ParseFloat(s, 64) reads it (and
//	              encoding/json for float64 and any), keyed by that float64
//	              value: "42", "042", "4.2e1" and "0x2Ap0" give "42", and
//	              9007199254740992 and 9007199254740993 share a key. Not a
//	              finite number (NaN, infinities, "abc") is an ErrInvalidKey.
//	              For handlers that decode into float64, any, map[string]any or
//	              json.Number.
//
// |float never locks less than |int, only more (integers above 2^53 a few
// units apart share a key): use it when a handler's type is unknown.
// Without a conversion, json. numbers are keyed by value (below), but
// strings, from JSON or any other source, are keyed as they are: right for
// handlers that use the string itself, a trap for those that parse it.
//
// # Values
//
// A part that is missing or empty is an error wrapping
// [executor.ErrInvalidKey] that names the expression: a request never falls
// back to a shared default key.
//
// json. values: strings are used as they are; numbers in one form per value
// (42, 42.0 and 4.2e1 give "42"; 1e20 and 100000000000000000000 give the
// same; integers of any size keep their exact value, which is what an
// integer field sees but not a float64, see Numbers; other numbers their
// float64 value), so {"id":42} and {"id":"42"} lock the same key; booleans
// give "true" or "false"; null is missing; objects and arrays are rejected
// (ErrInvalidKey): a part must be a scalar. Names match ignoring case, as
// encoding/json does when it decodes into a struct, and an object on the
// path with two members of that name (ignoring case) is an ErrInvalidKey:
// the handler could decode the other one.
//
// form. values are read from the body only; a name that is also in the
// query string is an ErrInvalidKey, since r.FormValue prefers the body for
// urlencoded bodies but the query for multipart ones. Likewise, query.
// values of a request with a urlencoded or multipart body read the body,
// and a name that the body has too (even empty) is an ErrInvalidKey:
// otherwise POST /pay?id=8 with the body id=7 would lock order 8 while a
// handler calling r.FormValue("id") pays order 7.
//
// The body is read up to [DefaultMaxBodyBytes] (see [WithMaxBodyBytes]); a
// longer body is an ErrInvalidKey, for query. values on form bodies too
// (the body cannot be checked): key routes that take large multipart
// uploads by path., header. or a func. instead. r.Body is replaced by a
// reader that yields the same bytes, so the handler reads the body
// unchanged.
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
