package keybuilder

import "net/http"

// HTTPFunc computes one key part from an HTTP request; register it with
// [WithHTTPFunc] and refer to it as func.<name>. It returns "" or an error
// when the part is missing; an error is wrapped into the builder's error, so
// return one wrapping executor.ErrInvalidKey for a bad request (400) and
// anything else for a server-side failure. It must be safe for concurrent
// use and must not consume r.Body.
type HTTPFunc func(r *http.Request) (string, error)
