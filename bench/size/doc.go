// Package size measures what lock4go adds to a service's binary: lockhttp
// is a small HTTP service on lock4go, its Redis executor and the HTTP
// middleware; plainhttp is the same service on go-redis and net/http
// alone. [Measure] builds both; make bench reports their sizes in
// docs/bench.md ("Binary size"). Its tests check that the first links no
// gRPC nor protobuf and, without -short, that it is at most 1.5x the size
// of the second; from the bench directory,
//
//	go test -run HTTPOnly_size -v ./size/
//
// prints both sizes and their ratio.
package size
