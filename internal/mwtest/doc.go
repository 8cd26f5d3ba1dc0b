// Package mwtest holds what the tests of the request-path packages
// (middleware for net/http, grpclock for gRPC) share: a Template over an
// executor whose events and logs a test can watch ([Env]), a backend that
// cannot be reached ([DownExecutor]) and distinct ids ([RandomID]).
package mwtest
