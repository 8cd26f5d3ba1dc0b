// Package lockspec holds what the HTTP middleware (package middleware) and
// the gRPC interceptors (package grpclock) share about their Specs: the
// lock attributes (Lock4j's @Lock4j), their validation and translation
// into lock4go.LockOption values, the keys of Each, taking one key or several,
// and logging a misconfiguration once.
package lockspec
