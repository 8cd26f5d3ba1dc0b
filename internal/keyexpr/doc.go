// Package keyexpr holds what the key builders of keybuilder (HTTP requests,
// struct fields) and grpclock (gRPC calls) share, so that one value gives
// one key whichever builds it: key expressions and their parsing, the
// formatter of values (numbers, booleans, bytes), the "|int" and "|float"
// conversions, escaping, the part and key length caps, and hashing of long
// keys. Its behaviour is documented, for users, in keybuilder's package
// documentation and in docs/keys.md.
package keyexpr
