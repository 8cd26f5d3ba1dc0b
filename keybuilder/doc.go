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
// # The body as the handler reads it
//
// A body is read for a key as the handler's reader would read it, and a
// request that common readers (net/http's form methods, encoding/json,
// gin's ShouldBind, echo's Bind) could read another way is refused
// (ErrInvalidKey, 400), never keyed by one reading while the handler acts
// on another:
//
//   - form. reads a urlencoded body of a POST, PUT or PATCH, or a
//     multipart/form-data body of any method, exactly when net/http's
//     r.ParseForm and r.ParseMultipartForm do (a malformed Content-Type
//     parameter does not stop a urlencoded body from being parsed);
//   - json. reads a body sent as application/json (parameters aside,
//     lower case, as gin compares it) with a method other than GET; other
//     types, +json ones and a missing Content-Type included, and every
//     GET, are refused: gin binds them from the query instead;
//   - query. is refused when the body may hold the same name: a form
//     field, a top-level JSON member, or any body of a type gin or echo
//     decode and the builder does not (XML, YAML, TOML, msgpack,
//     protobuf, BSON);
//   - a query parameter or form field given twice with different values,
//     and a JSON object with two members a decoder may take for one
//     segment (names equal ignoring case, or "7" and "07" for a
//     map[int]T), are refused: readers differ on which one wins.
//
// # One key per value
//
// The HTTP builder, the gRPC builder of package grpclock and [Fields] key
// one value alike, so that a lock4go.Locked job, a gRPC call and an HTTP
// request on the same order exclude each other:
//
//	integers      decimal digits                  42, -7
//	enums         by number (the stable part of   9 (not TYPE_STRING)
//	              a proto contract)
//	floats        whole values as digits, others  1500000 (not 1.5e+06), 0.1,
//	              in the shortest form; -0 is 0;  1e-07
//	              NaN and ±Inf refused
//	booleans      true, false
//	bytes         standard base64, as             /zo=
//	              encoding/json and protojson
//	              write them ("|base64" reads
//	              the other spellings)
//
// A JSON body written by encoding/json or by protojson (with
// UseEnumNumbers: protojson writes enum names by default) from the same
// values keys alike; "|int" accepts whole floats of any size (1.5e6 is
// 1500000). Strings are keyed as they are everywhere.
//
// # Limits
//
// A body is read up to [DefaultMaxBodyBytes] (1 MiB, [WithMaxBodyBytes])
// for json., form. and query. (beside a form or JSON body) expressions,
// by a scanner that validates JSON as json.Valid does and builds no value
// it skips, so a key costs about what json.Valid costs on the same body
// whatever its shape; a longer body, or one over an outer
// http.MaxBytesReader, is a PartError whose chain holds an
// *http.MaxBytesError (413). A part longer than [DefaultMaxPartLen] (64
// KiB of raw value: the text, or the bytes of a []byte or proto bytes
// field; [WithMaxPartLen]) is a PartError; a key longer than
// [DefaultMaxKeyLen] (512 bytes) is hashed, its parts escaped straight
// into the hash, whichever builder builds it and whatever its
// [WithMaxKeyLen]. Multipart bodies are read with the limits the
// handler's r.ParseMultipartForm has (1000 parts), urlencoded ones with
// url.ParseQuery's (10000 fields).
//
// Keys must not change across releases while old and new processes run:
// set an explicit name when a route pattern may change.
//
// The expressions in full, the number traps, value rules, escaping and the
// length limit are described in docs/keys.md of the repository:
// https://github.com/lock4go/lock4go/blob/main/docs/keys.md
package keybuilder
