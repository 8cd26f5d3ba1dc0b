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
// rather than its spelling. A missing part, or one that cannot be keyed, is
// a [*PartError] wrapping executor.ErrInvalidKey, whose [PartError.Message]
// names the expression (the middleware answers 400 with it); names and
// parts are escaped so that no two different requests build the same key,
// and a key longer than the limit is shortened to a prefix and a SHA-256 of
// the rest. [Join] builds keys by hand with the same escaping, and [Fields]
// builds them from the fields of a struct, for lock4go.Locked.
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
//	              write them
//
// A JSON body written by encoding/json or by protojson (with
// UseEnumNumbers: protojson writes enum names by default) from the same
// values keys alike; "|int" accepts whole floats of any size (1.5e6 is
// 1500000). Strings are keyed as they are everywhere.
//
// # Limits
//
// A body is read up to [DefaultMaxBodyBytes] (1 MiB, [WithMaxBodyBytes])
// for json., form. and query. (on form bodies) expressions, by a scanner
// that validates JSON as json.Valid does and builds no value it skips, so
// a key costs about what json.Valid costs on the same body whatever its
// shape. A part longer than [DefaultMaxPartLen] (64 KiB of raw value,
// [WithMaxPartLen]) is a PartError; a key longer than [DefaultMaxKeyLen]
// (512 bytes, [WithMaxKeyLen]) is hashed, its parts escaped straight into
// the hash. Multipart bodies are read with the limits the handler's
// r.ParseMultipartForm has (1000 parts), urlencoded ones with
// url.ParseQuery's (10000 fields).
//
// Keys must not change across releases while old and new processes run:
// set an explicit name when a route pattern may change.
//
// The expressions in full, the number traps, value rules, escaping and the
// length limit are described in docs/keys.md of the repository:
// https://github.com/lock4go/lock4go/blob/main/docs/keys.md
package keybuilder
