// Package size measures what lock4go adds to a service's binary: lockhttp
// is a small HTTP service on lock4go, its Redis executor and the HTTP
// middleware; plainhttp is the same service on go-redis and net/http
// alone. Its tests check that the first links no gRPC nor protobuf and,
// without -short, that it is at most 1.5x the size of the second.
//
// To rebuild and compare by hand, from the bench directory:
//
//	go build -trimpath -o /tmp/lockhttp ./size/lockhttp
//	go build -trimpath -o /tmp/plainhttp ./size/plainhttp
//	ls -l /tmp/lockhttp /tmp/plainhttp
package size
